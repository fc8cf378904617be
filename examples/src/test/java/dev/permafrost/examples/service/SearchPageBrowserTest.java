/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The search page in a real headless Chromium driven by Selenium: search, see hits and the chart, see the cache go
 * from cold to warm, see a bad query's problem. Keeps a screenshot in {@code target/screenshots/search-page.png}.
 * Needs Chromium and chromedriver ({@code scripts/servers/chromium.sh install}).
 */
class SearchPageBrowserTest extends SampleServiceTestBase {
  private ChromeDriver browser;

  @BeforeEach
  void openBrowser() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(binary("PERMAFROST_CHROMIUM"));
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
        "--disable-gpu");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(binary("PERMAFROST_CHROMEDRIVER"))).usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
  }

  @AfterEach
  void closeBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void searchShowsHitsTheChartAndTheCacheGoingFromColdToWarm() throws Exception {
    http().put("/indices/page-day", "{\"snapshot\":\"logs-nginx-2024.02.03\"}");
    try {
      http().awaitCacheIdle(); // a region a fill is writing survives the clear
      http().post("/cache/clear", null).ok();
      browser.get("http://127.0.0.1:" + port + "/");
      WebElement pattern = browser.findElement(By.id("pattern"));
      pattern.clear();
      pattern.sendKeys("page-day");
      browser.findElement(By.id("q")).sendKeys("http.response.status_code:404");
      browser.findElement(By.id("search")).click();
      awaitState("done");

      assertTrue(browser.findElements(By.cssSelector("#hits li.hit")).size() > 0, "hits are listed");
      assertTrue(browser.findElement(By.id("hits")).getText().contains("404"), "with their stored fields");
      assertTrue(browser.findElements(By.cssSelector("#chart rect.bar")).size() > 1, "the chart has bars");
      assertTrue(browser.findElement(By.id("summary")).getText().matches("(≥ )?\\d[\\d,]* hits in \\d+ ms"),
          browser.findElement(By.id("summary")).getText());
      WebElement cache = browser.findElement(By.id("cache"));
      assertEquals("cold", cache.getAttribute("class"), cache.getText());
      String cost = browser.findElement(By.id("cost")).getText();
      assertTrue(cost.startsWith("this search: ") && cost.contains("store requests in") && !cost.startsWith("this search: 0 "),
          "a cold search's own cost: " + cost);
      assertTrue(Long.parseLong(cache.getAttribute("data-bytes-fetched")) > 0, cache.getText());
      assertTrue(cache.getText().startsWith("cache hit ratio"), cache.getText());

      // the page's cache line is a delta of the cache's global counters: let a fill the search (or the histogram after
      // it) started and did not wait for land now, not during the next search
      http().awaitCacheIdle();
      browser.findElement(By.id("search")).click();
      awaitState("done");
      cache = browser.findElement(By.id("cache"));
      assertEquals("warm", cache.getAttribute("class"), "the same search again is served from the cache: "
          + cache.getText());
      assertTrue(cache.getText().contains("hit ratio 100%"), cache.getText());
      cost = browser.findElement(By.id("cost")).getText();
      assertTrue(cost.startsWith("this search: 0 store requests in"), "a warm search's own cost: " + cost);

      pattern = browser.findElement(By.id("pattern"));
      pattern.clear();
      pattern.sendKeys("logs-nginx-*");
      WebElement q = browser.findElement(By.id("q"));
      q.clear();
      q.sendKeys("GET AND http.response.status_code:200");
      browser.findElement(By.id("search")).click();
      awaitState("done");
      screenshot();
      // newest first, 50 hits: the older days cannot beat them and are not counted; the page says it is a bound
      JsonNode api = http().get("/indices/logs-nginx-*/search?q="
          + URLEncoder.encode("GET AND http.response.status_code:200", StandardCharsets.UTF_8)
          + "&size=50").ok();
      String summary = browser.findElement(By.id("summary")).getText();
      String total = String.format(Locale.US, "%,d", api.get("total").asLong());
      assertEquals(api.get("totalRelation").asString().equals("gte") ? "≥ " + total : total,
          summary.substring(0, summary.indexOf(" hits")), summary);
      assertEquals("gte", api.get("totalRelation").asString(), "the sample's older days were skipped: " + api);

      browser.findElement(By.id("q")).sendKeys(" AND (");
      browser.findElement(By.id("search")).click();
      awaitState("failed");
      String problem = browser.findElement(By.id("problem")).getText();
      assertTrue(problem.startsWith("400 Bad query: cannot parse query"), problem);
    } finally {
      http().delete("/indices/page-day");
    }
  }

  @Test
  void aSearchLivesInTheUrlSoItCanBeSharedAndBackGoesBack() throws Exception {
    String first = "http://127.0.0.1:" + port + "/?pattern=logs-nginx-*&q="
        + URLEncoder.encode("http.response.status_code:404", StandardCharsets.UTF_8)
        + "&from=2024-02-02";
    browser.get(first); // as from a bookmark or a link someone shared
    awaitState("done");
    assertEquals("logs-nginx-*", browser.findElement(By.id("pattern")).getAttribute("value"));
    assertEquals("http.response.status_code:404", browser.findElement(By.id("q")).getAttribute("value"));
    assertEquals("2024-02-02", browser.findElement(By.id("from")).getAttribute("value"));
    String firstSummary = browser.findElement(By.id("summary")).getText();
    assertTrue(browser.findElement(By.id("hits")).getText().contains("404"), "the shared search ran");
    assertEquals("page 1", browser.findElement(By.id("page")).getText());
    String firstHit = browser.findElement(By.cssSelector("#hits li.hit")).getText();

    browser.findElement(By.id("next")).click(); // the next 50 hits, and the page in the URL
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(b -> b.getCurrentUrl().contains("page=2"));
    awaitState("done");
    assertEquals("page 2", browser.findElement(By.id("page")).getText());
    assertTrue(!browser.findElement(By.cssSelector("#hits li.hit")).getText().equals(firstHit), "another page of hits");
    browser.navigate().back();
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(b -> "page 1".equals(b.findElement(By.id("page")).getText()));
    awaitState("done");
    assertEquals(firstHit, browser.findElement(By.cssSelector("#hits li.hit")).getText(), "Back to the first page");

    WebElement q = browser.findElement(By.id("q"));
    q.clear();
    q.sendKeys("GET");
    browser.findElement(By.id("search")).click();
    awaitState("done");
    assertTrue(browser.getCurrentUrl().contains("q=GET"), browser.getCurrentUrl());
    assertTrue(browser.getCurrentUrl().contains("from=2024-02-02"), browser.getCurrentUrl());

    browser.navigate().back();
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(b ->
        "http.response.status_code:404".equals(b.findElement(By.id("q")).getAttribute("value")));
    awaitState("done");
    assertEquals(first, browser.getCurrentUrl());
    assertEquals(firstSummary.replaceAll(" in \\d+ ms", ""),
        browser.findElement(By.id("summary")).getText().replaceAll(" in \\d+ ms", ""), "Back shows the first search again");
  }

  /** Waits for the page's state; the 60 s bound only turns a hang into a failure. */
  private void awaitState(String state) {
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(b -> {
      String now = b.findElement(By.tagName("body")).getAttribute("data-state");
      return state.equals(now) || ("done".equals(state) && "failed".equals(now)) ? now : null;
    });
    assertEquals(state, browser.findElement(By.tagName("body")).getAttribute("data-state"),
        () -> browser.findElement(By.id("problem")).getText());
  }

  private void screenshot() throws Exception {
    Path dir = Path.of("target", "screenshots");
    Files.createDirectories(dir);
    Path png = dir.resolve("search-page.png");
    Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), png, StandardCopyOption.REPLACE_EXISTING);
    byte[] head = new byte[4];
    try (var in = Files.newInputStream(png)) {
      assertEquals(4, in.read(head));
    }
    assertEquals("\u0089PNG", new String(head, StandardCharsets.ISO_8859_1));
  }

  private static String binary(String variable) {
    String path = System.getenv(variable);
    if (path == null || path.isBlank() || !Files.isExecutable(Path.of(path))) {
      fail(variable + " does not name an executable (" + path + "): the browser test needs Chromium and chromedriver."
          + " Install them with scripts/servers/chromium.sh install and eval \"$(scripts/test-servers.sh env)\","
          + " or run scripts/test");
    }
    return path;
  }
}
