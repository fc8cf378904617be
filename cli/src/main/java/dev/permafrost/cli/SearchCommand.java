/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.Durations;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.QueryFront;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code permafrost search [--format FORMAT] <repository-uri> <name-or-glob> <query>}: searches snapshots in place;
 * those of an OpenSearch or Elasticsearch repository through {@link EngineSearch}.
 */
@Command(
    name = "search",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Search snapshots in place through a temporary cache.",
    description = {
      "Searches the snapshots whose names match NAME-OR-GLOB ('*' any run of characters, '?' one) in place, through a"
          + " temporary cache that is deleted afterwards, and prints the best hits, one a line (index, document,"
          + " score and the stored fields asked for), then the total and its relation (exact, or a lower bound).",
      "QUERY is in Lucene's syntax, read as Elasticsearch's query_string reads it over the index's mapping: a"
          + " Permafrost snapshot's is the one --mapping declares (an Elasticsearch mapping as JSON); without one,"
          + " terms without a field search the default field (analyzed with the standard analyzer) and every other"
          + " field is a keyword matched as written (host.name:web-03). Blank, '*' and '*:*' match every document."
          + " --from and --to keep the hits whose timestamp (--timestamp-field) lies in [from, to).",
      "With --format opensearch or elasticsearch, the repository is one a cluster wrote and NAME-OR-GLOB is"
          + " SNAPSHOT/INDEX, each part a name or a glob (SNAPSHOT alone: all its indices): every shard of the indices"
          + " it names is mounted. QUERY is read by each index's own mapping, as the engine reads it (keyword fields as"
          + " one term, text fields analyzed as mapped, numbers and dates as points or doc values, dates as ISO-8601"
          + " or epoch milliseconds); every term names its field; indices that map a field differently are searched"
          + " together, each by its own mapping. Each hit is a line: SNAPSHOT/INDEX, its shard, its _id, its score or sort value, and the"
          + " fields asked for (-f _source: the document as indexed, as JSON)."
    })
final class SearchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin RepositoryFormat format;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "1", paramLabel = "NAME-OR-GLOB", description = "a snapshot, or a glob such as 'logs-2024.02.*';"
      + " with --format opensearch or elasticsearch, SNAPSHOT/INDEX such as 'snap-2024.02.15/logs-*'")
  String pattern;

  @Parameters(index = "2", paramLabel = "QUERY", description = "e.g. 'message:error AND host.name:web-03'")
  String query;

  @Option(names = {"-n", "--size"}, paramLabel = "N", defaultValue = "10",
      description = "hits to print, the best first (default: ${DEFAULT-VALUE})")
  int size;

  @Option(names = {"-f", "--fields"}, paramLabel = "FIELD", split = ",",
      description = "stored fields to print for each hit (comma separated); of an engine's index, _source (the"
          + " document as JSON) or fields its mapping stores")
  List<String> fields = new ArrayList<>();

  @Option(names = "--default-field", paramLabel = "FIELD", defaultValue = "message",
      description = "the field of terms without a field name (default: ${DEFAULT-VALUE}; not with --format opensearch"
          + " or elasticsearch, whose queries name every field)")
  String defaultField;

  @Option(names = "--sort", paramLabel = "FIELD[:asc|desc]",
      description = "sort the hits on a keyword, number or date field of the mapping, ascending unless :desc, as the"
          + " engine does (a document's smallest value ascending, its largest descending, documents without one"
          + " last); default: by score")
  String sort;

  @Option(names = "--mapping", paramLabel = "FILE",
      description = "for a Permafrost snapshot: the Elasticsearch mapping its fields are queried and sorted by (JSON:"
          + " {\"properties\": ...}, or an index body with \"mappings\"); not with --format opensearch or"
          + " elasticsearch, whose snapshots record theirs")
  Path mapping;

  @Option(names = "--from", paramLabel = "TIME",
      description = "only hits whose timestamp is at or after TIME (ISO-8601 instant, 2024-02-03, or epoch ms)")
  String from;

  @Option(names = "--to", paramLabel = "TIME", description = "only hits whose timestamp is before TIME")
  String to;

  @Option(names = "--timestamp-field", paramLabel = "FIELD", defaultValue = "@timestamp",
      description = "the date field --from and --to filter on (default: ${DEFAULT-VALUE})")
  String timestampField;

  @Option(names = "--exact-total", description = "count every hit exactly (default: exact up to 1,000 per index, or"
      + " per shard of an engine's index)")
  boolean exactTotal;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "how long the search may run, waits for the store included (ISO-8601 such as PT5S, or 500ms, 5s, 1m;"
          + " default: none); past it the search fails naming the indices still running")
  String timeout;

  @Option(names = "--cache-size", paramLabel = "SIZE", defaultValue = "256mb",
      description = "the size of the temporary cache (a sparse file; default: ${DEFAULT-VALUE})")
  String cacheSize;

  /** What a command does with the temporary catalog: mounts and searches. */
  private interface CatalogWork {
    SearchResponse search(Catalog catalog) throws IOException;
  }

  @Override
  public Integer call() throws Exception {
    format.checkPermafrostOptions();
    PrintWriter out = spec.commandLine().getOut();
    if (size < 1) {
      throw new UsageException("--size must be at least 1, got " + size);
    }
    Duration limit = timeout == null ? null : parseTimeout(timeout);
    QueryFront.TimeRange range;
    try {
      range = QueryFront.TimeRange.parse(from, to);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--from/--to: " + e.getMessage(), e);
    }
    if (format.isEngine()) {
      if (mapping != null) {
        throw new UsageException("--mapping is for a Permafrost snapshot: an engine's snapshot records its own");
      }
      if (spec.commandLine().getParseResult().hasMatchedOption("--default-field")) {
        throw new UsageException("--default-field is not for --format " + format.label() + ": name the field of every"
            + " term (field:value), as the engine's query_string with no default field");
      }
      try (EngineRepository repository = EngineRepository.open(repositoryUri, format)) {
        EngineSearch search = EngineSearch.prepare(repository, pattern, query, sort, range, timestampField);
        for (String field : search.unmappedFields()) {
          spec.commandLine().getErr().println(spec.qualifiedName() + ": note: no index searched maps field '" + field
              + "': it matches nothing");
        }
        SearchResponse response = withTemporaryCatalog(catalog -> {
          search.mount(catalog, repository.engine());
          SearchResponse found = catalog.search(search.request(fields).size(size).exactTotalHits(exactTotal)
              .timeout(limit).build());
          search.rebuildMissingSources(catalog, found, fields);
          return found;
        });
        search.print(out, response);
      }
      return ExitCodes.OK;
    }
    if (!Names.isGlob(pattern)) {
      Names.validateSnapshot(pattern);
    }
    QueryFront front = new QueryFront(defaultField, timestampField);
    Query parsed;
    Sort order;
    try {
      IndexMapping declared = mapping != null ? IndexMapping.declared(readMapping()) : front.undeclared(front.fieldsOf(query));
      parsed = front.query(declared, query, range);
      order = front.sort(QueryFront.SortKey.parse(sort, null), List.of(declared));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage() + (mapping == null && sort != null ? " (a Permafrost snapshot records no"
          + " mapping: give one with --mapping)" : ""), e);
    }
    try (Repository repository = Repository.open(repositoryUri)) {
      List<String> names = Names.matching(pattern, repository.snapshots().listSnapshots());
      if (names.isEmpty()) {
        throw new IOException("no snapshot in " + repository.redactedUri() + " matches '" + pattern + "'"
            + repository.engineHint());
      }
      SearchResponse response = withTemporaryCatalog(catalog -> {
        for (String name : names) {
          catalog.mount(name, repository.snapshots(), name);
        }
        return catalog.search(SearchRequest.builder(parsed)
            .indices(names.toArray(String[]::new))
            .size(size)
            .sort(order)
            .fields(fields.toArray(String[]::new))
            .exactTotalHits(exactTotal)
            .timeout(limit)
            .build());
      });
      print(out, response);
    }
    return ExitCodes.OK;
  }

  /** The text of the --mapping file. */
  private String readMapping() {
    try {
      return Files.readString(mapping);
    } catch (IOException e) {
      throw new UsageException("--mapping " + mapping + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** Runs {@code work} on a catalog over a cache in a temporary directory, deleted afterwards. */
  private SearchResponse withTemporaryCatalog(CatalogWork work) throws IOException {
    Path cacheDir = Files.createTempDirectory("permafrost-search-");
    try {
      SharedRegionCache cache;
      try {
        cache = SharedRegionCache.builder().path(cacheDir).size(cacheSize).build();
      } catch (IllegalArgumentException e) {
        throw new UsageException("--cache-size: " + e.getMessage(), e);
      }
      try (cache; Catalog catalog = Catalog.builder(cache).build()) {
        return work.search(catalog);
      }
    } finally {
      deleteRecursively(cacheDir);
    }
  }

  /** A positive duration ({@link Durations#parse}): {@code 500ms}, {@code 5s}, {@code 2m}, {@code PT5S}. */
  static Duration parseTimeout(String text) throws UsageException {
    try {
      Duration d = Durations.parse(text);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("not positive");
      }
      return d;
    } catch (IllegalArgumentException e) {
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
      if (hit.sortValues() != null && hit.sortValues().length > 0) {
        line.append("\tsort=").append(hit.sortValues()[0]);
      }
      if (hit.document() != null) {
        for (IndexableField f : hit.document().getFields()) {
          Object value = f.numericValue() != null ? f.numericValue() : f.stringValue();
          line.append('\t').append(f.name()).append('=').append(value);
        }
      }
      out.println(line);
    }
    out.println("total: " + Formats.total(response.totalHits()) + " in " + response.searched().size() + (response.searched().size() == 1 ? " index" : " indices")
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
