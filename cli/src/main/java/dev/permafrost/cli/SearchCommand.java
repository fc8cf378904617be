/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TotalHits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost search <repository-uri> <name-or-glob> <query>}: searches snapshots in place. */
@Command(
    name = "search",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Search snapshots in place through a temporary cache.",
    description = {
      "Searches the snapshots whose names match NAME-OR-GLOB ('*' any run of characters, '?' one) in place, through a"
          + " temporary cache that is deleted afterwards, and prints the best hits, one a line (index, document,"
          + " score and the stored fields asked for), then the total and its relation (exact, or a lower bound).",
      "QUERY is in Lucene's classic syntax: terms without a field search the default field (analyzed with the"
          + " standard analyzer); every other field is a keyword matched as written (host.name:web-03); '*' matches"
          + " every document."
    })
final class SearchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "1", paramLabel = "NAME-OR-GLOB", description = "a snapshot, or a glob such as 'logs-2024.02.*'")
  String pattern;

  @Parameters(index = "2", paramLabel = "QUERY", description = "e.g. 'message:error AND host.name:web-03'")
  String query;

  @Option(names = {"-n", "--size"}, paramLabel = "N", defaultValue = "10",
      description = "hits to print, the best first (default: ${DEFAULT-VALUE})")
  int size;

  @Option(names = {"-f", "--fields"}, paramLabel = "FIELD", split = ",",
      description = "stored fields to print for each hit (comma separated)")
  List<String> fields = new ArrayList<>();

  @Option(names = "--default-field", paramLabel = "FIELD", defaultValue = "message",
      description = "the field of terms without a field name (default: ${DEFAULT-VALUE})")
  String defaultField;

  @Option(names = "--exact-total", description = "count every hit exactly (default: exact up to 1,000 per index)")
  boolean exactTotal;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "how long the search may run, waits for the store included (ISO-8601 such as PT5S, or 500ms, 5s, 1m;"
          + " default: none); past it the search fails naming the indices still running")
  String timeout;

  @Option(names = "--cache-size", paramLabel = "SIZE", defaultValue = "256mb",
      description = "the size of the temporary cache (a sparse file; default: ${DEFAULT-VALUE})")
  String cacheSize;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (size < 1) {
      throw new UsageException("--size must be at least 1, got " + size);
    }
    if (!Names.isGlob(pattern)) {
      Names.validateSnapshot(pattern);
    }
    Query parsed = QueryText.parse(query, defaultField);
    java.time.Duration limit = timeout == null ? null : parseTimeout(timeout);
    try (Repository repository = Repository.open(repositoryUri)) {
      List<String> names = Names.matching(pattern, repository.snapshots().listSnapshots());
      if (names.isEmpty()) {
        throw new IOException("no snapshot in " + repository.redactedUri() + " matches '" + pattern + "'");
      }
      Path cacheDir = Files.createTempDirectory("permafrost-search-");
      try {
        SharedRegionCache cache;
        try {
          cache = SharedRegionCache.builder().path(cacheDir).size(cacheSize).build();
        } catch (IllegalArgumentException e) {
          throw new UsageException("--cache-size: " + e.getMessage(), e);
        }
        SearchResponse response;
        try (cache; Catalog catalog = Catalog.builder(cache).build()) {
          for (String name : names) {
            catalog.mount(name, repository.snapshots(), name);
          }
          response = catalog.search(SearchRequest.builder(parsed)
              .indices(names.toArray(String[]::new))
              .size(size)
              .fields(fields.toArray(String[]::new))
              .exactTotalHits(exactTotal)
              .timeout(limit)
              .build());
        }
        print(out, response);
      } finally {
        deleteRecursively(cacheDir);
      }
    }
    return ExitCodes.OK;
  }

  /** {@code 500ms}, {@code 5s}, {@code 2m} or ISO-8601 ({@code PT5S}); positive. */
  static java.time.Duration parseTimeout(String text) throws UsageException {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      java.time.Duration d;
      if (t.startsWith("p")) {
        d = java.time.Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
      } else if (t.endsWith("ms")) {
        d = java.time.Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      } else if (t.endsWith("s")) {
        d = java.time.Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
      } else if (t.endsWith("m")) {
        d = java.time.Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      } else {
        throw new NumberFormatException();
      }
      if (d.isNegative() || d.isZero()) {
        throw new NumberFormatException();
      }
      return d;
    } catch (RuntimeException e) {
      throw new UsageException("--timeout must be a positive duration such as 500ms, 5s, 1m or PT5S, got '" + text + "'");
    }
  }

  private void print(PrintWriter out, SearchResponse response) {
    for (SearchResponse.Hit hit : response.hits()) {
      StringBuilder line = new StringBuilder();
      line.append(hit.index()).append("\tdoc=").append(hit.doc());
      if (!Float.isNaN(hit.score())) {
        line.append("\tscore=").append(hit.score());
      }
      if (hit.document() != null) {
        for (IndexableField f : hit.document().getFields()) {
          Object value = f.numericValue() != null ? f.numericValue() : f.stringValue();
          line.append('\t').append(f.name()).append('=').append(value);
        }
      }
      out.println(line);
    }
    TotalHits total = response.totalHits();
    out.println("total: " + (total.relation() == TotalHits.Relation.EQUAL_TO ? Formats.plural(total.value(), "hit")
        : "at least " + Formats.plural(total.value(), "hit") + " (a lower bound; --exact-total counts them all)")
        + " in " + response.searched().size() + (response.searched().size() == 1 ? " index" : " indices")
        + (response.skipped().isEmpty() ? "" : ", " + response.skipped().size() + " skipped by their point ranges"));
    for (Map.Entry<String, String> failed : response.failed().entrySet()) {
      out.println("failed: " + failed.getKey() + ": " + failed.getValue());
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
