/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.examples.service.mounts.SavedMounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * What is mounted survives a restart of the service: an index mounted through the API under a name of its own is
 * mounted again, from the saved manifest, when the service starts again on the same home.
 */
class SavedMountsTest {
  @TempDir Path home;

  private ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
        "--permafrost.home=" + home, "--permafrost.cache.size=32mb", "--permafrost.sample.days=2",
        "--permafrost.sample.events-per-day=500");
  }

  private static Http http(ConfigurableApplicationContext context) {
    return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
  }

  private static List<String> names(Http http) throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode index : http.get("/indices").ok()) {
      names.add(index.get("name").asString());
    }
    return names;
  }

  @Test
  void indicesMountedThroughTheApiSurviveARestart() throws Exception {
    List<String> before;
    try (ConfigurableApplicationContext context = start()) {
      Http http = http(context);
      List<String> sample = names(http);
      assertEquals(2, sample.size(), sample.toString());
      assertEquals(201, http.put("/indices/pinned", "{\"snapshot\":\"" + sample.get(0) + "\"}").status());
      http.delete("/indices/" + sample.get(1)).ok();
      before = names(http);
      assertEquals(List.of("pinned", sample.get(0)).stream().sorted().toList(), before.stream().sorted().toList());
    }
    String saved = Files.readString(home.resolve(SavedMounts.FILE_NAME));
    assertTrue(saved.contains("pinned\t"), saved);
    try (ConfigurableApplicationContext context = start()) {
      List<String> after = names(http(context));
      // the sample mounts its days again if they are missing: the unmounted day comes back, the pinned name stays
      assertTrue(after.containsAll(before), "after a restart " + after + " holds " + before);
      JsonNode pinned = http(context).get("/indices/pinned").ok();
      assertEquals(before.stream().filter(n -> !n.equals("pinned")).findFirst().orElseThrow(),
          pinned.get("snapshot").asString());
    }
  }
}
