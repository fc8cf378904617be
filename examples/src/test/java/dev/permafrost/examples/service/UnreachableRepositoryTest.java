/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/** A repository whose store nobody answers for (an S3 endpoint on a closed port): 503s, and health says down. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class UnreachableRepositoryTest {
  @LocalServerPort int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort(); // free once closed: nothing listens there
    }
    String home = Files.createTempDirectory("permafrost-unreachable").toString();
    registry.add("permafrost.home", () -> home);
    registry.add("permafrost.cache.size", () -> "16mb");
    registry.add("permafrost.sample.enabled", () -> "false");
    registry.add("permafrost.repository.uri", () -> "s3://nowhere/snapshots?endpoint=http://127.0.0.1:" + closed
        + "&access_key=test&secret_key=test-secret&connect_timeout=1s");
    registry.add("permafrost.repository.max-retries", () -> "0");
    registry.add("permafrost.repository.request-timeout", () -> "2s");
  }

  @Test
  void requestsThatNeedTheStoreAre503ProblemsAndHealthIsDown() throws Exception {
    Http http = new Http(port);
    JsonNode mount = http.put("/indices/logs", "{\"snapshot\":\"logs\"}").problem(503);
    assertEquals("Repository unavailable", mount.get("title").asString());
    assertTrue(mount.get("detail").asString().contains("127.0.0.1"), mount.toString());
    assertTrue(!mount.toString().contains("test-secret"), "no credentials in a response");
    assertEquals("Repository unavailable", http.get("/snapshots").problem(503).get("title").asString());

    Http.Answer health = http.get("/actuator/health/repository");
    assertEquals(503, health.status(), health.body());
    assertEquals("DOWN", health.json().get("status").asString());
    assertTrue(http.get("/indices").ok().isEmpty(), "nothing mounted, the rest of the API answers");
  }
}
