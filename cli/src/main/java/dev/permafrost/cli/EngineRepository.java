/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.snapshot.SnapshotException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A snapshot repository an OpenSearch or Elasticsearch cluster wrote, named on the command line by its URI (and,
 * where it has one, its base path), open for one command; closing it closes the store. Resolves the
 * {@code SNAPSHOT[/INDEX]} arguments of {@code info} and {@code search}: a name that is not there fails with
 * {@link SnapshotException.NotFound} naming it and what there is (exit 1), as a missing Permafrost snapshot does.
 */
final class EngineRepository implements AutoCloseable {
  /** At most this many names are quoted in an error; beyond, their count and how to list them. */
  private static final int NAMES_QUOTED = 10;

  /** One index of one snapshot. */
  record Target(String snapshot, String index) {
    /** {@code snapshot/index}, as the commands take and print it. */
    @Override
    public String toString() {
      return snapshot + "/" + index;
    }
  }

  private final Repository store;
  private final EngineSnapshotRepository engine;
  private final String format;

  private EngineRepository(Repository store, EngineSnapshotRepository engine, String format) {
    this.store = store;
    this.engine = engine;
    this.format = format;
  }

  /**
   * Opens the repository at {@code uri} (a {@code base_path} in it: {@code basePath}, or null): reads its root
   * metadata, two requests.
   *
   * @throws SnapshotException.NotFound if there is no such repository there
   */
  static EngineRepository open(String uri, RepositoryFormat format) throws IOException {
    Repository store = Repository.open(uri);
    try {
      return new EngineRepository(store, EngineSnapshotRepository.open(store.store(), format.basePath), format.label());
    } catch (SnapshotException.NotFound e) {
      boolean permafrost;
      try {
        permafrost = !store.snapshots().listSnapshots().isEmpty();
      } catch (IOException listing) {
        permafrost = false; // only a hint: the engine's error is the answer
      }
      store.close();
      if (permafrost) {
        throw new SnapshotException.NotFound(e.getMessage() + "; it holds Permafrost snapshots: leave --format out",
            e);
      }
      throw e;
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** The repository, as the library reads it. */
  EngineSnapshotRepository engine() {
    return engine;
  }

  /** The URI without query nor user info: safe to print. */
  String redactedUri() {
    return store.redactedUri();
  }

  /** The format as given on the command line ({@code opensearch} or {@code elasticsearch}). */
  String format() {
    return format;
  }

  /**
   * The indices of snapshot {@code snapshot}, one that completed: no request (snapshots are listed, oldest first, by
   * {@link EngineSnapshotRepository#snapshots()}, which reads each one's start time).
   *
   * @throws SnapshotException.NotFound if there is no snapshot of that name, naming it, the format and the URI
   */
  List<String> indices(String snapshot) throws IOException {
    try {
      return engine.indices(snapshot);
    } catch (SnapshotException.NotFound e) { // the library's message, quoted as the cause, lists those there are
      throw new SnapshotException.NotFound("no snapshot '" + snapshot + "' in " + format + " repository "
          + redactedUri() + " ('permafrost list --format " + format + " URI' lists them)", e);
    }
  }

  /**
   * The indices that {@code pattern} names: {@code SNAPSHOT} (every index of it) or {@code SNAPSHOT/INDEX}, each part
   * a name or a glob ({@code *} any run of characters, {@code ?} one). A name that is not there, or a glob that matches
   * nothing, fails naming it. A glob over snapshots reads each one's start time once, and lists them oldest first.
   */
  List<Target> resolve(String pattern) throws IOException {
    int slash = pattern.indexOf('/');
    String snapshotPart = slash < 0 ? pattern : pattern.substring(0, slash);
    String indexPart = slash < 0 ? "*" : pattern.substring(slash + 1);
    if (snapshotPart.isEmpty() || indexPart.isEmpty() || indexPart.indexOf('/') >= 0) {
      throw new UsageException("'" + pattern + "' does not name indices of a snapshot: use SNAPSHOT/INDEX, each part a"
          + " name or a glob, such as 'snap-2024.02.15/logs-*'");
    }
    List<String> snapshots = List.of(snapshotPart);
    if (Names.isGlob(snapshotPart)) {
      List<String> all = engine.snapshots();
      snapshots = Names.matching(snapshotPart, all);
      if (snapshots.isEmpty()) {
        throw new SnapshotException.NotFound("no snapshot in " + format + " repository " + redactedUri() + " matches '"
            + snapshotPart + "' (" + quote(all, "snapshots") + ")", null);
      }
    }
    List<Target> targets = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (String snapshot : snapshots) {
      List<String> indices = indices(snapshot);
      for (String index : Names.matching(indexPart, indices)) {
        targets.add(new Target(snapshot, index));
      }
      for (String index : indices) {
        if (!seen.contains(index)) {
          seen.add(index);
        }
      }
    }
    if (targets.isEmpty()) {
      String where = snapshots.size() == 1 ? "snapshot '" + snapshots.get(0) + "'"
          : snapshots.size() + " snapshots matching '" + snapshotPart + "'";
      throw new SnapshotException.NotFound((Names.isGlob(indexPart) ? "no index in " + where + " matches '" + indexPart
          + "'" : where + " has no index '" + indexPart + "'") + " in " + format + " repository " + redactedUri() + " ("
          + quote(seen, "indices") + ")", null);
    }
    return targets;
  }

  /** {@code it has a, b}, or, for many, how many and how to list them. */
  private String quote(List<String> names, String plural) {
    if (names.isEmpty()) {
      return "it has no " + plural;
    }
    if (names.size() <= NAMES_QUOTED) {
      return "it has " + String.join(", ", names);
    }
    return "it has " + names.size() + " " + plural + "; 'permafrost list --format " + format + " URI' lists them";
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
