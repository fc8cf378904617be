/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import dev.permafrost.blob.StoreSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * The names of the settings of the {@code gs://} backend, and their parsed values. The same names are used as
 * URI query parameters ({@code gs://bucket/prefix?endpoint=http://127.0.0.1:4443&credentials=none}) and with
 * {@link GcsBlobStore.Builder#setting(String, String)}; both are read through {@link StoreSettings}, so an
 * unknown or misspelt setting is rejected by name.
 *
 * <p>Retries, deadlines, hedging and rate limits are no settings of this backend: they belong to the
 * {@link dev.permafrost.blob.StorePolicy} around the store ({@code max_retries}, {@code request_timeout}, ... in a
 * {@code gs://} URI opened with {@link dev.permafrost.blob.BlobStores#open(URI)}). The GCS client itself makes
 * exactly one attempt per request.
 */
public final class GcsSettings {
  /** The Google Cloud project; default: the credentials' project, else the environment's. */
  public static final String PROJECT_ID = "project_id";
  /** Scheme, host and port of the JSON API; default {@value #DEFAULT_ENDPOINT}. */
  public static final String ENDPOINT = "endpoint";
  /** Path of a service-account JSON key file; default: none (application-default credentials). */
  public static final String CREDENTIALS_FILE = "credentials_file";
  /** {@code default} (application-default credentials) or {@code none} (no credentials, for emulators). */
  public static final String CREDENTIALS = "credentials";
  /** Time to establish a connection; default 20s. */
  public static final String CONNECT_TIMEOUT = "connect_timeout";
  /** Time to wait for data on an open connection; default 20s. */
  public static final String READ_TIMEOUT = "read_timeout";
  /** Blobs larger than this are written with a resumable upload; default 5mb. */
  public static final String RESUMABLE_THRESHOLD = "resumable_threshold";
  /** Bytes sent per request of a resumable upload, rounded up to a multiple of 256kb; default 16mb. */
  public static final String RESUMABLE_CHUNK_SIZE = "resumable_chunk_size";
  /** Objects asked for per list request; default 1000 (the most GCS returns). */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  /** The public JSON API endpoint. */
  public static final String DEFAULT_ENDPOINT = "https://storage.googleapis.com";

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(20);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(20);
  static final long DEFAULT_RESUMABLE_THRESHOLD = 5L << 20;
  static final long DEFAULT_RESUMABLE_CHUNK_SIZE = 16L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 1000;
  /** GCS requires resumable chunks to be multiples of 256 KiB. */
  static final int CHUNK_GRANULARITY = 256 * 1024;

  /** How the store authenticates. */
  enum CredentialsMode {
    /** Application-default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud, metadata server). */
    DEFAULT,
    /** No credentials at all: anonymous requests, as emulators expect. */
    NONE,
    /** A service-account JSON key file. */
    FILE
  }

  final String projectId;
  final String endpoint;
  final CredentialsMode credentialsMode;
  final Path credentialsFile;
  final Duration connectTimeout;
  final Duration readTimeout;
  final long resumableThreshold;
  final int resumableChunkSize;
  final int listPageSize;

  private GcsSettings(StoreSettings s) {
    String project = s.get(PROJECT_ID, null);
    this.projectId = project == null || project.isBlank() ? null : project.trim();
    this.endpoint = parseEndpoint(s.get(ENDPOINT, DEFAULT_ENDPOINT));
    String file = s.get(CREDENTIALS_FILE, null);
    String mode = s.get(CREDENTIALS, null);
    if (file != null && file.isBlank()) {
      throw new IllegalArgumentException("gs blob store setting '" + CREDENTIALS_FILE + "' must not be empty");
    }
    if (mode != null) {
      mode = mode.trim().toLowerCase(Locale.ROOT);
      if (!mode.equals("default") && !mode.equals("none")) {
        throw new IllegalArgumentException(
            "gs blob store setting '" + CREDENTIALS + "' must be 'default' (application-default credentials) or"
                + " 'none' (no credentials, for emulators); give a key file with '" + CREDENTIALS_FILE + "' instead");
      }
    }
    if (file != null && mode != null) {
      throw new IllegalArgumentException(
          "gs blob store settings '" + CREDENTIALS_FILE + "' and '" + CREDENTIALS + "=" + mode
              + "' contradict each other; give only one");
    }
    if (file != null) {
      this.credentialsMode = CredentialsMode.FILE;
      this.credentialsFile = Path.of(file.trim());
    } else {
      this.credentialsMode = "none".equals(mode) ? CredentialsMode.NONE : CredentialsMode.DEFAULT;
      this.credentialsFile = null;
    }
    this.connectTimeout = positive(CONNECT_TIMEOUT, s.getDuration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT));
    this.readTimeout = positive(READ_TIMEOUT, s.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT));
    this.resumableThreshold = s.getBytes(RESUMABLE_THRESHOLD, DEFAULT_RESUMABLE_THRESHOLD);
    if (resumableThreshold > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "gs blob store setting '" + RESUMABLE_THRESHOLD + "' must be below 2gb (smaller blobs are buffered in memory)");
    }
    long chunk = s.getBytes(RESUMABLE_CHUNK_SIZE, DEFAULT_RESUMABLE_CHUNK_SIZE);
    if (chunk <= 0 || chunk > (1L << 30)) {
      throw new IllegalArgumentException(
          "gs blob store setting '" + RESUMABLE_CHUNK_SIZE + "' must be between 256kb and 1gb, got " + chunk + " bytes");
    }
    // GCS accepts only multiples of 256 KiB; round up so that what is used is what the server takes.
    this.resumableChunkSize = (int) ((chunk + CHUNK_GRANULARITY - 1) / CHUNK_GRANULARITY * CHUNK_GRANULARITY);
    this.listPageSize = s.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    if (listPageSize < 1 || listPageSize > 1000) {
      throw new IllegalArgumentException(
          "gs blob store setting '" + LIST_PAGE_SIZE + "' must be between 1 and 1000, got " + listPageSize);
    }
    s.rejectUnknown();
  }

  /** Reads every setting and rejects any setting it does not know, by name. */
  static GcsSettings parse(StoreSettings settings) {
    return new GcsSettings(settings);
  }

  private static Duration positive(String name, Duration d) {
    if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("gs blob store setting '" + name + "' must be a positive duration, got " + d);
    }
    return d;
  }

  private static String parseEndpoint(String value) {
    String trimmed = value.trim();
    URI uri;
    try {
      uri = URI.create(trimmed);
    } catch (IllegalArgumentException e) {
      throw badEndpoint(trimmed);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null
        || uri.getRawQuery() != null) {
      throw badEndpoint(trimmed);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (!path.isEmpty() && !path.equals("/")) {
      throw badEndpoint(trimmed);
    }
    return scheme + "://" + uri.getRawAuthority();
  }

  private static IllegalArgumentException badEndpoint(String value) {
    // The value is not echoed whole: a mistyped endpoint could carry user info.
    return new IllegalArgumentException(
        "gs blob store setting '" + ENDPOINT + "' must be an http or https URL with a host and optional port and"
            + " nothing else, such as https://storage.googleapis.com or http://127.0.0.1:4443");
  }
}
