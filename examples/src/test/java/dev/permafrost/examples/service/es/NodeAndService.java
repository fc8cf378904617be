/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import dev.permafrost.examples.service.SearchServiceApplication;
import dev.permafrost.fixture.DslDataset;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Elasticsearch 9.3.3 node holding {@link DslDataset} and the service over that node's snapshot, started once
 * for every test class that compares the two (the node takes a minute or two to start and write the dataset): the
 * first {@link #shared()} starts both, the others get the same pair. Both end with the test JVM: the node's JVM when
 * its standard input closes, the service by Spring's shutdown hook.
 */
final class NodeAndService {
  private static NodeAndService shared;

  private final LiveEngineNode node;
  private final URI serviceUri;

  private NodeAndService(LiveEngineNode node, URI serviceUri) {
    this.node = node;
    this.serviceUri = serviceUri;
  }

  /** The node and the service, started by the first call. A start that failed is tried again by the next call. */
  static synchronized NodeAndService shared() throws IOException, InterruptedException {
    if (shared == null) {
      LiveEngineNode node = LiveEngineNode.start(EngineFixture.ELASTICSEARCH_93, Path.of("target", "live-node-differential"));
      try {
        Path home = Files.createTempDirectory("permafrost-differential");
        ConfigurableApplicationContext service = new SpringApplicationBuilder(SearchServiceApplication.class).run(
            "--server.port=0", "--permafrost.home=" + home, "--permafrost.cache.size=64mb",
            "--permafrost.sample.enabled=false", "--permafrost.engine-repository.uri=" + node.repository().toUri(),
            "--permafrost.engine-repository.snapshot=" + node.snapshot());
        int port = ((WebServerApplicationContext) service).getWebServer().getPort();
        shared = new NodeAndService(node, URI.create("http://127.0.0.1:" + port));
      } catch (RuntimeException | Error e) {
        node.close();
        throw e;
      }
    }
    return shared;
  }

  /** The live node. */
  LiveEngineNode node() {
    return node;
  }

  /** The service's address: {@code http://127.0.0.1:<port>}. */
  URI serviceUri() {
    return serviceUri;
  }
}
