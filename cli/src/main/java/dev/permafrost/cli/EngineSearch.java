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
import dev.permafrost.elasticsearch.MappedQueryParser;
import dev.permafrost.elasticsearch.MissingSources;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.Sort;
import org.apache.lucene.util.BytesRef;

/**
 * {@code permafrost search --format opensearch URI SNAPSHOT/INDEX QUERY}: the indices that {@code SNAPSHOT/INDEX}
 * names, each shard mounted in the command's temporary catalog, searched with the query parsed by the indices'
 * mapping ({@link MappedQueryParser}); hits printed with their decoded {@code _id} and, if asked, {@code _source}.
 *
 * <p>One query is parsed for all the indices, so every field it names (and the sort field) must be mapped alike in
 * every index that maps it; where two map it differently, the search fails naming the field, the indices and their
 * mappings, before anything is mounted. An index that does not map a field matches nothing on it, as in the engine.
 */
final class EngineSearch {
  /** A mounted shard: the index it is of, and its number. */
  private record Shard(EngineRepository.Target target, int shard) {}

  /** The hits' sources rebuilt from doc values, where none is stored ({@link #rebuildMissingSources}). */
  private final Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuilt = new IdentityHashMap<>();

  private final Map<EngineRepository.Target, IndexMetadata> indices;
  private final Query query;
  private final Sort sort;
  /** The sort field's mapping, or null when sorted by score. */
  private final IndexMapping.Field sortField;
  /** Fields the query names that no index searched maps. */
  private final Set<String> unmapped;
  /** The shards mounted, by the name they are mounted under. */
  private final Map<String, Shard> mounted = new LinkedHashMap<>();

  private EngineSearch(Map<EngineRepository.Target, IndexMetadata> indices, Query query, Sort sort,
      IndexMapping.Field sortField, Set<String> unmapped) {
    this.indices = indices;
    this.query = query;
    this.sort = sort;
    this.sortField = sortField;
    this.unmapped = unmapped;
  }

  /**
   * Resolves {@code pattern}, reads the indices' mappings (a request each) and parses {@code queryText} and
   * {@code sortText} ({@code FIELD}, {@code FIELD:asc} or {@code FIELD:desc}; null: by score) by them.
   *
   * @throws UsageException if the query does not parse, names a field the indices map differently or that cannot be
   *     queried, or the sort field is not one to sort on
   */
  static EngineSearch prepare(EngineRepository repository, String pattern, String queryText, String sortText)
      throws IOException {
    Map<EngineRepository.Target, IndexMetadata> indices = new LinkedHashMap<>();
    for (EngineRepository.Target target : repository.resolve(pattern)) {
      indices.put(target, repository.engine().indexMetadata(target.snapshot(), target.index()));
    }
    boolean matchAll = queryText == null || queryText.isBlank() || queryText.trim().equals("*")
        || queryText.trim().equals("*:*");
    String sortName = null;
    boolean descending = false;
    if (sortText != null) {
      int colon = sortText.lastIndexOf(':');
      String direction = colon < 0 ? "asc" : sortText.substring(colon + 1).toLowerCase(Locale.ROOT);
      sortName = colon < 0 ? sortText : sortText.substring(0, colon);
      if (sortName.isEmpty() || !direction.equals("asc") && !direction.equals("desc")) {
        throw new UsageException("--sort takes FIELD, FIELD:asc or FIELD:desc, got '" + sortText + "'");
      }
      descending = direction.equals("desc");
    }
    Set<String> fields = new LinkedHashSet<>(matchAll ? Set.of() : fieldsOf(queryText));
    if (sortName != null) {
      fields.add(sortName);
    }
    IndexMapping mapping = mappingFor(fields, indices);
    Set<String> unmapped = new TreeSet<>();
    for (String field : fields) {
      if (mapping.field(field) == null) {
        unmapped.add(field);
      }
    }
    MappedQueryParser parser = new MappedQueryParser(mapping);
    Query query;
    Sort sort = null;
    try {
      query = matchAll ? new MatchAllDocsQuery() : parser.parse(queryText);
      if (sortName != null) {
        if (mapping.field(sortName) == null) {
          throw new IllegalArgumentException("cannot sort on '" + sortName + "': none of the indices searched maps it");
        }
        sort = new Sort(parser.sortField(sortName, descending));
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    return new EngineSearch(indices, query, sort, sortName == null ? null : mapping.field(sortName), unmapped);
  }

  /**
   * The fields {@code queryText} names, read by a parser that knows no mapping: which fields a query names does not
   * depend on how they are mapped.
   */
  private static Set<String> fieldsOf(String queryText) {
    Query names;
    try {
      names = new MappedQueryParser(IndexMapping.of(null)).parse(queryText);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    Set<String> fields = new LinkedHashSet<>();
    names.visit(new QueryVisitor() {
      @Override
      public boolean acceptField(String field) {
        fields.add(field);
        return true;
      }

      @Override
      public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
        return this;
      }
    });
    return fields;
  }

  /**
   * The mapping to parse by: that of an index mapping every field of {@code fields} that any index maps, once each
   * such field is checked to be mapped alike wherever it is mapped.
   */
  private static IndexMapping mappingFor(Set<String> fields, Map<EngineRepository.Target, IndexMetadata> indices) {
    Set<String> mappedSomewhere = new LinkedHashSet<>();
    for (String field : fields) {
      Map<IndexMapping.Field, List<EngineRepository.Target>> definitions = new LinkedHashMap<>();
      indices.forEach((target, metadata) -> {
        IndexMapping.Field definition = metadata.mapping().field(field);
        if (definition != null) {
          definitions.computeIfAbsent(definition, d -> new ArrayList<>()).add(target);
        }
      });
      if (definitions.size() > 1) {
        List<String> how = new ArrayList<>();
        definitions.forEach((definition, targets) -> how.add(EngineInfo.type(definition) + " in "
            + (targets.size() > 3 ? targets.subList(0, 3) + " and " + (targets.size() - 3) + " more" : targets)));
        throw new UsageException("field '" + field + "' is mapped differently in the indices searched: "
            + String.join("; ", how) + ". One query is parsed for them all: search them apart");
      }
      if (!definitions.isEmpty()) {
        mappedSomewhere.add(field);
      }
    }
    for (IndexMetadata metadata : indices.values()) {
      if (mappedSomewhere.stream().allMatch(f -> metadata.mapping().field(f) != null)) {
        return metadata.mapping();
      }
    }
    throw new UsageException("no one index searched maps every field of the query that some index maps ("
        + String.join(", ", mappedSomewhere) + "): search them apart");
  }

  /** Fields the query names that no index searched maps: they match nothing, as in the engine. */
  Set<String> unmappedFields() {
    return unmapped;
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
    return SearchRequest.builder(query).indices(mounted.keySet().toArray(String[]::new)).sort(sort)
        .fields(stored.toArray(String[]::new));
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
