/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A repository named on the command line by its URI ({@code file:///var/snapshots}, {@code s3://bucket/prefix?...},
 * {@code gs://...}, {@code azblob://...}), open for one command; closing it closes the store.
 *
 * <p>A URI that is not one, has no scheme, names a scheme no backend serves, or is malformed for its backend is a
 * {@link UsageException} (exit 2), its message quoting the URI without its query and user info, where credentials
 * go ({@link BlobStores#redact}).
 */
final class Repository implements AutoCloseable {
  private final String uri;
  private final BlobStore store;
  private final SnapshotRepository repository;

  private Repository(String uri, BlobStore store) {
    this.uri = uri;
    this.store = store;
    this.repository = SnapshotRepository.open(store);
  }

  /** Opens the existing repository at {@code text}, a blob store URI; a {@code file:} one must be a directory. */
  static Repository open(String text) throws IOException {
    return open(text, false);
  }

  /**
   * Opens the repository at {@code text}, a blob store URI. Unless {@code create}, a {@code file:} repository must be
   * an existing directory: the filesystem store creates its directory when opened, which a command that only reads
   * must not do for a mistyped path.
   */
  static Repository open(String text, boolean create) throws IOException {
    URI uri = parse(text);
    if (!create && "file".equalsIgnoreCase(uri.getScheme()) && uri.getPath() != null && !uri.getPath().isEmpty()
        && !Files.isDirectory(Path.of(uri.getPath()))) {
      throw new UsageException("no repository at " + printable(uri) + ": " + uri.getPath() + " is not a directory");
    }
    BlobStore store;
    try {
      store = BlobStores.open(uri);
    } catch (IllegalArgumentException e) {
      throw new UsageException("bad repository URI: " + e.getMessage()
          + (uri.getScheme() == null ? " (for a directory, use file:///absolute/path)" : ""), e);
    }
    return new Repository(printable(uri), store);
  }

  /** The URI as given if it has nothing to hide (no query, no user info), else as {@link BlobStores#redact} gives it. */
  static String printable(URI uri) {
    return uri.getRawQuery() == null && uri.getRawUserInfo() == null && uri.getRawFragment() == null ? uri.toString()
        : BlobStores.redact(uri);
  }

  /** Parses a URI without ever quoting it whole in a message: its query may hold a secret. */
  static URI parse(String text) {
    if (text == null || text.isBlank()) {
      throw new UsageException("the repository URI is empty; give one such as file:///var/snapshots or s3://bucket/prefix");
    }
    try {
      return new URI(text.strip());
    } catch (URISyntaxException e) {
      throw new UsageException("the repository URI is not a valid URI: " + e.getReason() + " at index " + e.getIndex()
          + " (not shown: it may hold credentials); give one such as file:///var/snapshots or s3://bucket/prefix");
    }
  }

  /** The snapshot repository at the store's root. */
  SnapshotRepository snapshots() {
    return repository;
  }

  /** The store, with its store policy around it. */
  BlobStore store() {
    return repository.store();
  }

  /**
   * For a command that found no Permafrost snapshot here: a hint to add {@code --format opensearch} if an OpenSearch
   * or Elasticsearch repository is at this URI ({@code index.latest} at its root: one request), else empty.
   */
  String engineHint() {
    try {
      return repository.store().exists("index.latest") ? "; it holds an OpenSearch or Elasticsearch snapshot"
          + " repository: add --format opensearch" : "";
    } catch (IOException e) {
      return ""; // only a hint: the command's own error is the answer
    }
  }

  /** The URI without query nor user info: safe to print. */
  String redactedUri() {
    return uri;
  }

  /** The store as the library describes it in messages: safe to print. */
  String describe() {
    return store.describe();
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
