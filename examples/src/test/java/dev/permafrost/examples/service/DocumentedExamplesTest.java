/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every curl example of the project's Markdown pages runs as written against the quickstart's service: the service
 * with its default settings (the sample of 7 days of 10,000 events) on a port of its own, each command run by bash
 * with a real curl, in the order the pages give them, as a user pastes them. An example answers 2xx, or the status its
 * line's comment names ({@code # 400 ...}); a search or histogram that answers 200 must find something
 * ({@code total > 0}), so an example that quietly matches nothing fails too. The curl the service prints when it is
 * ready is run the same way. Every Python example of the Elasticsearch API (a {@code python} block that imports
 * {@code elasticsearch}) runs whole, as written, with the official client's virtual environment
 * ({@code PERMAFROST_PYTHON}, which {@code scripts/test} sets), and must end with status 0 having printed something.
 */
class DocumentedExamplesTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(\\w*)");
  private static final Pattern EXPECTED_STATUS = Pattern.compile("#\\s*([1-5][0-9][0-9])\\b");
  private static final Pattern STATUS = Pattern.compile("\n@@status (\\d{3})\n");
  private static final String DOCUMENTED_BASE = "http://127.0.0.1:8080";
  private static final Pattern ELASTICSEARCH_CLIENT = Pattern.compile("(?m)^(from|import) elasticsearch\\b");

  @TempDir Path home;

  /** A curl example: where it is written, and the line itself. */
  record Example(Path page, int line, String command) {
    @Override
    public String toString() {
      return page.getFileName() + ":" + line + ": " + command;
    }
  }

  @Test
  void everyCurlExampleRunsAsWritten() throws Exception {
    Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    List<Example> examples = curlExamples(root);
    assertTrue(examples.stream().filter(e -> e.page().endsWith(Path.of("examples", "README.md"))).count() >= 10,
        "the service's README has its API examples: " + examples);

    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = System.out;
    ConfigurableApplicationContext context;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      context = new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
          "--permafrost.home=" + home);
    } finally {
      System.setOut(out);
    }
    try (context) {
      String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
      for (Example example : examples) {
        run(example, example.command().replace(DOCUMENTED_BASE, base), base);
      }
      Matcher ready = Pattern.compile("Try:\\s+(curl .*)").matcher(printed.toString(StandardCharsets.UTF_8));
      assertTrue(ready.find(), "the service prints a curl to try: " + printed);
      run(new Example(Path.of("ReadyMessage"), 0, ready.group(1)), ready.group(1), base);
    }
  }

  @Test
  void everyPythonExampleRunsAsWritten() throws Exception {
    String python = System.getenv("PERMAFROST_PYTHON");
    assertTrue(python != null && !python.isBlank() && Files.isExecutable(Path.of(python)), "PERMAFROST_PYTHON does"
        + " not name a python (" + python + "): the Python examples need the official client's virtual environment."
        + " Make it with scripts/servers/python-clients.sh install and eval \"$(scripts/test-servers.sh env)\", or"
        + " run scripts/test");
    Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    List<Example> examples = pythonExamples(root);
    assertTrue(examples.stream().anyMatch(e -> e.page().endsWith(Path.of("docs", "elasticsearch-api.md"))),
        "docs/elasticsearch-api.md has its Python example: " + examples);
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SearchServiceApplication.class)
        .run("--server.port=0", "--permafrost.home=" + home)) {
      String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
      for (Example example : examples) {
        Process process = new ProcessBuilder(python, "-c", example.command().replace(DOCUMENTED_BASE, base))
            .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), example + " did not end");
        assertEquals(0, process.exitValue(), example + "\n" + output);
        assertTrue(!output.isBlank(), example + " printed nothing");
      }
    }
  }

  /**
   * The {@code python} blocks of the pages {@link #curlExamples} reads that use the official Elasticsearch client,
   * each whole, at the line of its fence.
   */
  private static List<Example> pythonExamples(Path root) throws IOException {
    List<Example> examples = new ArrayList<>();
    for (Path page : pages(root)) {
      List<String> lines = Files.readAllLines(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher fence = FENCE.matcher(lines.get(i));
        if (fence.find() && fence.group(1).equals("python")) {
          int start = i;
          StringBuilder code = new StringBuilder();
          while (++i < lines.size() && !FENCE.matcher(lines.get(i)).find()) {
            code.append(lines.get(i)).append('\n');
          }
          if (ELASTICSEARCH_CLIENT.matcher(code).find()) { // the others are PySpark's (docs/spark.md)
            examples.add(new Example(page, start + 1, code.toString()));
          }
        }
      }
    }
    return examples;
  }

  /** The lines starting with {@code curl} in the shell blocks of every tracked Markdown page but jmh's notes. */
  private static List<Example> curlExamples(Path root) throws IOException {
    List<Example> examples = new ArrayList<>();
    for (Path page : pages(root)) {
      List<String> lines = Files.readAllLines(page);
      boolean shell = false;
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        Matcher fence = FENCE.matcher(lines.get(i));
        if (fence.find()) {
          shell = !fenced && List.of("sh", "bash", "shell", "console").contains(fence.group(1));
          fenced = !fenced;
        } else if (shell && lines.get(i).strip().startsWith("curl ")) {
          examples.add(new Example(page, i + 1, lines.get(i).strip()));
        }
      }
    }
    return examples;
  }

  /** Every tracked Markdown page but jmh's notes: the README first, then the others in order. */
  private static List<Path> pages(Path root) throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> paths = Files.walk(root, 3)) {
      paths.filter(p -> p.toString().endsWith(".md") && !p.startsWith(root.resolve("README.md")))
          .filter(p -> root.relativize(p).getNameCount() <= 2 || p.startsWith(root.resolve("docs")))
          .filter(p -> !root.relativize(p).toString().contains("target"))
          .sorted().forEach(pages::add);
    }
    return pages;
  }

  /**
   * Runs one line in bash with {@code $B} set to the service, every curl in it made to print its status after its
   * body, and checks each answer.
   */
  private static void run(Example example, String command, String base) throws Exception {
    ProcessBuilder bash = new ProcessBuilder("bash", "-c",
        "curl() { command curl -sS -w '\\n@@status %{http_code}\\n' \"$@\"; }\n" + command)
        .redirectErrorStream(true);
    bash.environment().put("B", base);
    Process process = bash.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), example + " did not end");
    assertEquals(0, process.exitValue(), example + "\n" + output);

    Matcher expected = EXPECTED_STATUS.matcher(command.contains("#") ? command.substring(command.indexOf('#')) : "");
    Matcher status = STATUS.matcher(output);
    int answers = 0;
    int bodyStart = 0;
    while (status.find()) {
      answers++;
      int code = Integer.parseInt(status.group(1));
      String body = output.substring(bodyStart, status.start());
      bodyStart = status.end();
      if (expected.find(0)) {
        assertEquals(Integer.parseInt(expected.group(1)), code, example + "\n" + body);
      } else {
        assertTrue(code >= 200 && code < 300, example + " answered " + code + "\n" + body);
      }
      if (code == 200 && (command.contains("/search") || command.contains("/histogram"))) {
        JsonNode answer = JSON.readTree(body);
        assertTrue(answer.get("total").asLong() > 0, example + " found nothing\n" + body);
      }
    }
    assertEquals(command.split("(^|[;&|]\\s*)curl ", -1).length - 1, answers, example + "\n" + output);
  }
}
