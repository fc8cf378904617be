/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.catalog.Glob;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.search.SortField;

/**
 * What a read's repository offers the driver and the executors, whichever wrote it: the units a scan reads (each a
 * snapshot the executors mount: a Permafrost snapshot, or one shard of an Elasticsearch or OpenSearch index), the
 * source they are mounted from, and the fields the schema is made of.
 */
abstract sealed class ScanSource {
  final SourceOptions options;

  private ScanSource(SourceOptions options) {
    this.options = options;
  }

  /** The source over {@code store} for {@code options}' format. */
  static ScanSource of(SourceOptions options, BlobStore store) throws IOException {
    return options.engine ? new Engine(options, EngineSnapshotRepository.open(store))
        : new Permafrost(options, SnapshotRepository.open(store));
  }

  /** Where the units are mounted from. */
  abstract SnapshotSource source();

  /** The units the options select, sorted. */
  abstract List<String> units() throws IOException;

  /** The fields of the schema, from {@code units} (the newest snapshot's, or the first index's mapping). */
  abstract IndexFields fields(List<String> units) throws IOException;

  /** The name a unit is mounted under in an executor's catalog. */
  static String mountName(String unit) {
    return unit.replace('/', '.');
  }

  /** Permafrost's own snapshots: each is a unit; the schema is the newest one's field infos. */
  static final class Permafrost extends ScanSource {
    private final SnapshotRepository repository;

    Permafrost(SourceOptions options, SnapshotRepository repository) {
      super(options);
      this.repository = repository;
    }

    @Override
    SnapshotSource source() {
      return repository;
    }

    @Override
    List<String> units() throws IOException {
      return SnapshotSelection.names(repository, options.snapshots, options.describeRepository());
    }

    @Override
    IndexFields fields(List<String> units) throws IOException {
      String newest = units.get(units.size() - 1);
      return IndexFields.of(newest, FieldInfosReader.read(repository, newest));
    }
  }

  /**
   * A repository an engine wrote: the units are the shards of the chosen indices of one snapshot; the schema is the
   * first index's mapping: keywords are strings, long, integer, short, byte and date fields longs (the timestamp
   * field a timestamp), text is queried but makes no column, {@code _id} and {@code _source} are strings.
   * Floating-point, boolean, ip and nested fields make no column.
   */
  static final class Engine extends ScanSource {
    private final EngineSnapshotRepository repository;
    private String snapshot;

    Engine(SourceOptions options, EngineSnapshotRepository repository) {
      super(options);
      this.repository = repository;
    }

    @Override
    SnapshotSource source() {
      return repository;
    }

    private String snapshot() throws IOException {
      if (snapshot == null) {
        List<String> all = repository.snapshots();
        List<String> named = options.snapshots;
        if (named.equals(List.of("*"))) {
          if (all.isEmpty()) {
            throw new IllegalArgumentException(options.describeRepository() + " has no completed snapshot");
          }
          snapshot = all.get(all.size() - 1);
        } else if (named.size() != 1 || named.get(0).contains("*") || named.get(0).contains("?")) {
          throw new IllegalArgumentException("option 'snapshots' must name one snapshot of an Elasticsearch or"
              + " OpenSearch repository (or be left out for the newest), got " + named);
        } else if (!all.contains(named.get(0))) {
          throw new IllegalArgumentException("option 'snapshots' names '" + named.get(0) + "', which is not a completed"
              + " snapshot of " + options.describeRepository() + " (it has " + all + ")");
        } else {
          snapshot = named.get(0);
        }
      }
      return snapshot;
    }

    private List<String> indices() throws IOException {
      String snapshot = snapshot();
      List<String> all = repository.indices(snapshot);
      return Glob.select(options.indices, all, p -> new IllegalArgumentException("option 'indices' names '" + p
          + "', which is not an index of snapshot '" + snapshot + "' of " + options.describeRepository()
          + " (it has " + all + ")"));
    }

    @Override
    List<String> units() throws IOException {
      List<String> units = new ArrayList<>();
      for (String index : indices()) {
        int shards = repository.indexMetadata(snapshot(), index).shards();
        for (int shard = 0; shard < shards; shard++) {
          units.add(EngineSnapshotRepository.shard(snapshot(), index, shard));
        }
      }
      return units;
    }

    @Override
    IndexFields fields(List<String> units) throws IOException {
      String index = units.get(0).split("/")[1];
      IndexMapping mapping = repository.indexMetadata(snapshot(), index).mapping();
      Map<String, IndexField> fields = new TreeMap<>();
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (f.nestedPath() != null) {
          continue; // its values are in documents the shard's reader hides
        }
        FieldKind kind = f.kind();
        IndexField field = null;
        if (kind.hasTermOrdinals()) {
          field = new IndexField(f.path(), true, false, 0, 0, DocValuesType.SORTED_SET, false);
        } else if (kind.numericType() == SortField.Type.LONG && kind != FieldKind.DATE_NANOS) { // long, date (millis)
          field = new IndexField(f.path(), false, false, 1, Long.BYTES, DocValuesType.SORTED_NUMERIC, false);
        } else if (kind.numericType() == SortField.Type.INT) {
          field = new IndexField(f.path(), false, false, 1, Integer.BYTES, DocValuesType.SORTED_NUMERIC, false);
        } else if (kind.isText()) {
          field = new IndexField(f.path(), false, true, 0, 0, DocValuesType.NONE, false);
        }
        if (field != null) {
          fields.put(f.path(), field);
        }
      }
      // stored only: decoded from the engine's encodings when read
      fields.put("_id", new IndexField("_id", false, false, 0, 0, DocValuesType.NONE, false));
      fields.put("_source", new IndexField("_source", false, false, 0, 0, DocValuesType.NONE, false));
      return new IndexFields(units.get(0), fields);
    }
  }
}
