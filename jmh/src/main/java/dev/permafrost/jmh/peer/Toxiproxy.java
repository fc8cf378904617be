/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import java.io.IOException;

/**
 * One Toxiproxy proxy in front of the store, which both engines read through, and the latency it adds to every
 * response (the model used everywhere else: a round trip to object storage).
 */
final class Toxiproxy implements AutoCloseable {
  private final Rest api;
  private final String name;
  final String listen;

  /** Creates (again) the proxy {@code name} listening on 127.0.0.1:{@code port} in front of {@code upstream}. */
  Toxiproxy(String apiUrl, String name, int port, String upstream) throws IOException {
    this.api = new Rest(apiUrl);
    this.name = name;
    this.listen = "127.0.0.1:" + port;
    try {
      api.delete("/proxies/" + name);
    } catch (IOException e) {
      // none yet
    }
    api.post("/proxies", "{\"name\":\"" + name + "\",\"listen\":\"" + listen + "\",\"upstream\":\"" + upstream
        + "\",\"enabled\":true}");
  }

  /** Adds {@code millis} to the first byte of every response (downstream), or removes the latency with 0. */
  void latency(int millis) throws IOException {
    try {
      api.delete("/proxies/" + name + "/toxics/latency");
    } catch (IOException e) {
      // none yet
    }
    if (millis > 0) {
      api.post("/proxies/" + name + "/toxics", "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\","
          + "\"attributes\":{\"latency\":" + millis + ",\"jitter\":0}}");
    }
  }

  @Override
  public void close() throws IOException {
    api.delete("/proxies/" + name);
  }
}
