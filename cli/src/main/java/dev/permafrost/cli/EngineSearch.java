/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.IndexMetadata;
import dev.permafrost.elasticsearch.MissingSources;
import dev.permafrost.elasticsearch.QueryFront;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.util.BytesRef;

/**
 * {@code permafrost search --format opensearch URI SNAPSHOT/INDEX QUERY}: the indices that {@code SNAPSHOT/INDEX}
 * names, each shard mounted in the command's temporary catalog, searched with the query and time range read by
 * {@link QueryFront}; hits printed with their decoded {@code _id} and, if asked, {@code _source}.
 *
 * <p>Each index is searched by its own mapping, as the engine searches it: indices that map a field differently are
 * searched together, each reading it as it maps it; an index that does not map a field matches nothing on it. A sort
 * must mean one thing in all of them: a field two indices sort differently is refused, naming their types.
 */
final class EngineSearch {
  /** A mounted shard: the index it is of, and its number. */
  private record Shard(EngineRepository.Target target, int shard) {}

  /** The hits' sources rebuilt from doc values, where none is stored ({@link #rebuildMissingSources}). */
  private final Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuilt = new IdentityHashMap<>();

  private final Map<EngineRepository.Target, IndexMetadata> indices;
  private final QueryFront front;
  private final String queryText;
  private final QueryFront.TimeRange range;
  private final Sort sort;
  /** The sort field's mapping, or null when sorted by score. */
  private final IndexMapping.Field sortField;
  /** Fields the query names that no index searched maps. */
  private final Set<String> unmapped;
  /** The shards mounted, by the name they are mounted under. */
  private final Map<String, Shard> mounted = new LinkedHashMap<>();

  private EngineSearch(Map<EngineRepository.Target, IndexMetadata> indices, QueryFront front, String queryText,
      QueryFront.TimeRange range, Sort sort, IndexMapping.Field sortField, Set<String> unmapped) {
    this.indices = indices;
    this.front = front;
    this.queryText = queryText;
    this.range = range;
    this.sort = sort;
    this.sortField = sortField;
    this.unmapped = unmapped;
  }

  /**
   * Resolves {@code pattern}, reads the indices' mappings (a request each) and reads {@code queryText},
   * {@code range} and {@code sortText} ({@code FIELD}, {@code FIELD:asc} or {@code FIELD:desc}; null: by score) by
   * each index's own mapping ({@link QueryFront}), before anything is mounted.
   *
   * @throws UsageException if the query does not parse, names a field an index's mapping cannot query, or the sort
   *     field is not one to sort on (or sorts differently in two indices)
   */
  static EngineSearch prepare(EngineRepository repository, String pattern, String queryText, String sortText,
      QueryFront.TimeRange range, String timestampField) throws IOException {
    Map<EngineRepository.Target, IndexMetadata> indices = new LinkedHashMap<>();
    for (EngineRepository.Target target : repository.resolve(pattern)) {
      indices.put(target, repository.engine().indexMetadata(target.snapshot(), target.index()));
    }
    QueryFront front = new QueryFront(null, timestampField);
    List<IndexMapping> mappings = indices.values().stream().map(IndexMetadata::mapping).toList();
    try {
      QueryFront.SortKey key = QueryFront.SortKey.parse(sortText, null);
      Set<String> unmapped = new TreeSet<>();
      for (String field : front.fieldsOf(queryText)) {
        if (mappings.stream().allMatch(m -> m.field(field) == null)) {
          unmapped.add(field);
        }
      }
      Map<String, IndexMapping> byTarget = new LinkedHashMap<>();
      indices.forEach((target, metadata) -> byTarget.put(target.toString(), metadata.mapping()));
      front.queries(byTarget::get, byTarget.keySet(), queryText, range); // refused now, naming the index
      return new EngineSearch(indices, front, queryText, range, front.sort(key, mappings),
          QueryFront.sortedField(key, mappings), unmapped);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  /** Fields the query names that no index searched maps: they match nothing, as in the engine. */
  Set<String> unmappedFields() {
    return unmapped;
  }

  /** The mapping of the shard mounted as {@code name}: its index's own. */
  private IndexMapping mappingOf(String name) {
    return indices.get(mounted.get(name).target()).mapping();
  }

  /**
   * Mounts every shard of every index to search in {@code catalog} ({@link EngineSnapshotRepository#mount}: all of an
   * index's shards or none): a request each, for its file list.
   */
  void mount(Catalog catalog, EngineSnapshotRepository engine) throws IOException {
    Set<String> bases = new LinkedHashSet<>();
    for (EngineRepository.Target target : indices.keySet()) {
      String base = mountName(target);
      if (!bases.add(base)) {
        base = base + "-" + bases.size(); // two targets alike once sanitized
        bases.add(base);
      }
      List<MountInfo> shards = engine.mount(catalog, base, target.snapshot(), target.index());
      for (int shard = 0; shard < shards.size(); shard++) {
        mounted.put(shards.get(shard).name(), new Shard(target, shard));
      }
    }
  }

  /**
   * {@code SNAPSHOT_INDEX} as the catalog takes a name (letters, digits, '.', '_', '-', starting with a letter or
   * digit; engine names may hold other characters), so that its messages (a timeout's, say) name what they are about.
   */
  private static String mountName(EngineRepository.Target target) {
    String name = (target.snapshot() + "_" + target.index()).replaceAll("[^A-Za-z0-9._-]", "-");
    name = Character.isLetterOrDigit(name.charAt(0)) ? name : "i" + name;
    return name.length() > 180 ? name.substring(0, 180) : name;
  }

  /**
   * Rebuilds, from their doc values, the source of the hits that store none where {@code _source} is asked for
   * (Elasticsearch's synthetic source: {@link MissingSources}), while {@code catalog} still has
   * their shards mounted; {@link #print} prints them, saying what they leave out.
   */
  void rebuildMissingSources(Catalog catalog, SearchResponse response, List<String> fields) throws IOException {
    if (fields.contains(EngineDocuments.SOURCE)) {
      rebuilt.putAll(MissingSources.rebuild(catalog, response.hits(),
          name -> indices.get(mounted.get(name).target()).mapping()));
    }
  }


  /** The request for the shards mounted: {@code _id} is always fetched, then {@code fields}. */
  SearchRequest.Builder request(List<String> fields) {
    Set<String> stored = new LinkedHashSet<>();
    stored.add(EngineDocuments.ID);
    stored.addAll(fields);
    Function<String, Query> queries = front.queries(this::mappingOf, mounted.keySet(), queryText, range);
    return SearchRequest.builder(queries.apply(mounted.keySet().iterator().next())).queryPerIndex(queries)
        .indices(mounted.keySet().toArray(String[]::new)).sort(sort).fields(stored.toArray(String[]::new));
  }

  /**
   * Prints the hits, one a line: {@code SNAPSHOT/INDEX}, the shard, the {@code _id}, the score or the sort value, then
   * the fields asked for ({@code _source} as JSON); then the total and its relation.
   */
  void print(PrintWriter out, SearchResponse response) {
    for (SearchResponse.Hit hit : response.hits()) {
      Shard shard = mounted.get(hit.index());
      StringBuilder line = new StringBuilder();
      line.append(shard.target()).append("\tshard=").append(shard.shard());
      line.append("\t_id=").append(EngineDocuments.id(hit.document()));
      if (!Float.isNaN(hit.score())) {
        line.append("\tscore=").append(hit.score());
      }
      if (sortField != null && hit.sortValues() != null) {
        line.append('\t').append(sortField.path()).append('=').append(sortValue(hit.sortValues()[0]));
      }
      for (IndexableField f : hit.document().getFields()) {
        if (f.name().equals(EngineDocuments.ID)) {
          continue;
        }
        Object value = f.name().equals(EngineDocuments.SOURCE) ? EngineDocuments.source(hit.document())
            : f.numericValue() != null ? f.numericValue() : f.stringValue();
        line.append('\t').append(f.name()).append('=').append(value);
      }
      EngineDocuments.RebuiltSource source = rebuilt.get(hit);
      if (source != null) {
        line.append('\t').append(EngineDocuments.SOURCE).append('=').append(source.json())
            .append("\t(no _source stored: rebuilt from doc values").append(source.leftOut().isEmpty() ? ""
                : ", without " + String.join(", ", source.leftOut())).append(')');
      }
      out.println(line);
    }
    Set<EngineRepository.Target> searched = new LinkedHashSet<>();
    for (String name : response.searched()) {
      searched.add(mounted.get(name).target());
    }
    out.println("total: " + Formats.total(response.totalHits()) + " in " + searched.size()
        + (searched.size() == 1 ? " index" : " indices") + " (" + Formats.plural(response.searched().size(), "shard")
        + ")" + (response.skipped().isEmpty() ? "" : ", " + Formats.plural(response.skipped().size(), "shard")
        + " skipped"));
    for (Map.Entry<String, String> failed : response.failed().entrySet()) {
      Shard shard = mounted.get(failed.getKey());
      out.println("failed: " + shard.target() + " shard " + shard.shard() + ": " + failed.getValue());
    }
  }

  /** A sort value as the mapping means it: a date as an instant, a keyword as text, a missing value as a dash. */
  private String sortValue(Object value) {
    if (value instanceof BytesRef bytes) {
      return bytes.utf8ToString();
    }
    if (value instanceof Long v) {
      if (v == Long.MIN_VALUE || v == Long.MAX_VALUE) {
        return "-"; // the sort's missing value: the document has none
      }
      if (sortField.kind() == FieldKind.DATE) {
        return Instant.ofEpochMilli(v).toString();
      }
      if (sortField.kind() == FieldKind.DATE_NANOS) {
        return Instant.EPOCH.plusNanos(v).toString();
      }
    }
    if (value instanceof Double d && d.isInfinite() || value instanceof Float f && f.isInfinite()) {
      return "-";
    }
    return value == null ? "-" : value.toString();
  }
}
