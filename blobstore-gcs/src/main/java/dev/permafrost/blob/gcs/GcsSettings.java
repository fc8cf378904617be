/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.Durations;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The settings of the {@code gs://} backend: their names, defaults, parsing and validation, in one place. The same
 * names are used as URI query parameters ({@code gs://bucket/prefix?endpoint=http://127.0.0.1:4443&credentials=none})
 * and with {@link GcsBlobStore.Builder#setting(String, String)}; both are read through {@link StoreSettings}, so an
 * unknown or misspelt setting is rejected by name. The names of settings that every backend has
 * ({@value #ENDPOINT}, {@value #CONNECT_TIMEOUT}, {@value #READ_TIMEOUT}, {@value #LIST_PAGE_SIZE},
 * {@value #SINGLE_UPLOAD_THRESHOLD}, {@value #PART_SIZE}) are the same in every backend.
 *
 * <p>Retries, deadlines, hedging and rate limits are no settings of this backend: they belong to the
 * {@link dev.permafrost.blob.StorePolicy} around the store ({@code max_retries}, {@code request_timeout}, ... in a
 * {@code gs://} URI opened with {@link dev.permafrost.blob.BlobStores#open(URI)}). The GCS client itself makes
 * exactly one attempt per request.
 */
public final class GcsSettings {
  /** The Google Cloud project; default: the credentials' project, else the environment's. Configures the client. */
  public static final String PROJECT_ID = "project_id";
  /** Scheme, host and port of the JSON API; default {@value #DEFAULT_ENDPOINT}. Configures the client. */
  public static final String ENDPOINT = "endpoint";
  /** Path of a service-account JSON key file; default: none (application-default credentials). Configures the client. */
  public static final String CREDENTIALS_FILE = "credentials_file";
  /**
   * {@code default} (application-default credentials) or {@code none} (no credentials, for emulators). Configures the
   * client.
   */
  public static final String CREDENTIALS = "credentials";
  /** Time to establish a connection; default 20s. Configures the client. */
  public static final String CONNECT_TIMEOUT = "connect_timeout";
  /** Time to wait for data on an open connection; default 20s. Configures the client. */
  public static final String READ_TIMEOUT = "read_timeout";
  /**
   * Blobs up to this size are written in one request (buffered in memory); larger ones with a resumable upload in
   * parts of {@value #PART_SIZE}; default 5mb.
   */
  public static final String SINGLE_UPLOAD_THRESHOLD = "single_upload_threshold";
  /** Bytes sent per request of a resumable upload, rounded up to a multiple of 256kb; default 16mb. */
  public static final String PART_SIZE = "part_size";
  /** Objects asked for per list request; default 1000 (the most GCS returns). */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  /** The public JSON API endpoint. */
  public static final String DEFAULT_ENDPOINT = "https://storage.googleapis.com";

  /**
   * The settings that configure the GCS client, which a store on an application's own {@code Storage}
   * ({@link GcsBlobStore.Builder#storage}) does not build: they are refused next to it.
   */
  static final List<String> CLIENT_SETTINGS =
      List.of(ENDPOINT, PROJECT_ID, CREDENTIALS, CREDENTIALS_FILE, CONNECT_TIMEOUT, READ_TIMEOUT);

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(20);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(20);
  static final long DEFAULT_SINGLE_UPLOAD_THRESHOLD = 5L << 20;
  static final long DEFAULT_PART_SIZE = 16L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 1000;
  /** GCS requires the parts of a resumable upload to be multiples of 256 KiB. */
  static final int PART_GRANULARITY = 256 * 1024;

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");

  /** Where the store's credentials come from. */
  enum CredentialsMode {
    /** Application-default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud, metadata server). */
    DEFAULT,
    /** No credentials at all: anonymous requests, as emulators expect. */
    NONE,
    /** A service-account JSON key file. */
    FILE,
    /** The {@code Credentials} given to {@link GcsBlobStore.Builder#credentials}. */
    GIVEN,
    /** The application's own {@code Storage} ({@link GcsBlobStore.Builder#storage}), with its own credentials. */
    CLIENT
  }

  /** Null when the client is the application's (mode {@link CredentialsMode#CLIENT}), as are the time-outs. */
  final String endpoint;
  final String projectId;
  final CredentialsMode credentialsMode;
  final Path credentialsFile;
  final Duration connectTimeout;
  final Duration readTimeout;
  final long singleUploadThreshold;
  final int partSize;
  final int listPageSize;

  private GcsSettings(StoreSettings s, CredentialsMode given) {
    if (given == CredentialsMode.CLIENT) {
      for (String name : CLIENT_SETTINGS) {
        if (s.get(name, null) != null) {
          throw new IllegalArgumentException(
              "gs blob store setting '" + name + "' configures the GCS client, but the store uses the Storage given"
                  + " to GcsBlobStore.Builder.storage(...): configure that Storage instead (StorageOptions: setHost,"
                  + " setProjectId, setCredentials, setTransportOptions), or leave storage(...) out");
        }
      }
      this.endpoint = null;
      this.projectId = null;
      this.credentialsMode = CredentialsMode.CLIENT;
      this.credentialsFile = null;
      this.connectTimeout = null;
      this.readTimeout = null;
    } else {
      String project = s.get(PROJECT_ID, null);
      this.projectId = project == null || project.isBlank() ? null : project.trim();
      this.endpoint = parseEndpoint(s.get(ENDPOINT, DEFAULT_ENDPOINT));
      String file = s.get(CREDENTIALS_FILE, null);
      String mode = s.get(CREDENTIALS, null);
      if (given == CredentialsMode.GIVEN) {
        if (file != null || mode != null) {
          throw new IllegalArgumentException(
              "gs blob store setting '" + (file != null ? CREDENTIALS_FILE : CREDENTIALS) + "' contradicts the"
                  + " Credentials given to GcsBlobStore.Builder.credentials(...); give only one");
        }
        this.credentialsMode = CredentialsMode.GIVEN;
        this.credentialsFile = null;
      } else {
        if (file != null && file.isBlank()) {
          throw new IllegalArgumentException("gs blob store setting '" + CREDENTIALS_FILE + "' must not be empty");
        }
        if (mode != null) {
          mode = mode.trim().toLowerCase(Locale.ROOT);
          if (!mode.equals("default") && !mode.equals("none")) {
            throw new IllegalArgumentException(
                "gs blob store setting '" + CREDENTIALS + "' must be 'default' (application-default credentials) or"
                    + " 'none' (no credentials, for emulators); give a key file with '" + CREDENTIALS_FILE
                    + "' instead");
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
      }
      this.connectTimeout = positive(CONNECT_TIMEOUT, s.getDuration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT));
      this.readTimeout = positive(READ_TIMEOUT, s.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT));
    }
    this.singleUploadThreshold = s.getBytes(SINGLE_UPLOAD_THRESHOLD, DEFAULT_SINGLE_UPLOAD_THRESHOLD);
    if (singleUploadThreshold > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("gs blob store setting '" + SINGLE_UPLOAD_THRESHOLD
          + "' must be below 2gb (smaller blobs are buffered in memory)");
    }
    long part = s.getBytes(PART_SIZE, DEFAULT_PART_SIZE);
    if (part <= 0 || part > (1L << 30)) {
      throw new IllegalArgumentException(
          "gs blob store setting '" + PART_SIZE + "' must be between 256kb and 1gb, got " + part + " bytes");
    }
    // GCS accepts only multiples of 256 KiB; round up so that what is used is what the server takes.
    this.partSize = (int) ((part + PART_GRANULARITY - 1) / PART_GRANULARITY * PART_GRANULARITY);
    this.listPageSize = s.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    if (listPageSize < 1 || listPageSize > 1000) {
      throw new IllegalArgumentException(
          "gs blob store setting '" + LIST_PAGE_SIZE + "' must be between 1 and 1000, got " + listPageSize);
    }
    s.rejectUnknown();
  }

  /**
   * Reads every setting for a store that builds its own client with the credentials the settings name, and
   * rejects any setting it does not know, by name.
   */
  static GcsSettings parse(StoreSettings settings) {
    return new GcsSettings(settings, null);
  }

  /**
   * Reads every setting, and rejects any setting it does not know, by name.
   *
   * @param given {@link CredentialsMode#GIVEN} when the builder was given {@code Credentials} (then the settings
   *     must name none), {@link CredentialsMode#CLIENT} when it was given a {@code Storage} (then the settings must
   *     not configure a client: {@link #CLIENT_SETTINGS}), null otherwise
   */
  static GcsSettings parse(StoreSettings settings, CredentialsMode given) {
    return new GcsSettings(settings, given);
  }

  /** Checks a bucket name as GCS would. */
  static void validateBucket(String bucket) {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException("gs blob store needs a bucket name, as in gs://bucket/prefix");
    }
    if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw new IllegalArgumentException(
          "invalid GCS bucket name '" + bucket + "': bucket names are 3 to 222 characters of lower-case letters,"
              + " digits, '-', '_' and '.', starting and ending with a letter or digit");
    }
  }

  /** The prefix below which blobs are kept: empty, or ending in '/'. */
  static String normalizePrefix(String prefix) {
    return BlobNames.normalizePrefix(prefix, "gs blob store prefix");
  }

  /** What to check when the credentials are refused or yield no token, for error messages. */
  String credentialsHint() {
    return switch (credentialsMode) {
      case FILE -> "the service-account key in credentials_file '" + credentialsFile
          + "' (is the key valid and not deleted, is the account enabled?)";
      case DEFAULT -> "the application-default credentials (GOOGLE_APPLICATION_CREDENTIALS, 'gcloud auth"
          + " application-default login', or the metadata server's service account), or set credentials_file";
      case NONE -> "the credentials: credentials=none sends no credentials, which only emulators and public"
          + " buckets accept; set credentials_file or use application-default credentials";
      case GIVEN -> "the Credentials given to GcsBlobStore.Builder.credentials(...) (are they valid, and can they"
          + " get a token for GCS?)";
      case CLIENT -> "the credentials of the Storage given to GcsBlobStore.Builder.storage(...)";
    };
  }

  /** Where the endpoint is configured, for error messages. */
  String endpointHint() {
    return credentialsMode == CredentialsMode.CLIENT
        ? "the host of the Storage given to GcsBlobStore.Builder.storage(...)"
        : "the " + ENDPOINT + " setting";
  }

  /** What to check when a request timed out, for error messages. */
  String timeoutHint() {
    if (credentialsMode == CredentialsMode.CLIENT) {
      return "check the network, or raise the time-outs of the transport options of the Storage given to"
          + " GcsBlobStore.Builder.storage(...)";
    }
    return "(" + CONNECT_TIMEOUT + " " + Durations.formatSetting(connectTimeout) + ", " + READ_TIMEOUT + " " + Durations.formatSetting(readTimeout)
        + "); check the network, or raise the timeouts";
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
      throw badEndpoint();
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null
        || uri.getRawQuery() != null) {
      throw badEndpoint();
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (!path.isEmpty() && !path.equals("/")) {
      throw badEndpoint();
    }
    return scheme + "://" + uri.getRawAuthority();
  }

  private static IllegalArgumentException badEndpoint() {
    // The value is not echoed: a mistyped endpoint could carry user info.
    return new IllegalArgumentException(
        "gs blob store setting '" + ENDPOINT + "' must be an http or https URL with a host and optional port and"
            + " nothing else, such as https://storage.googleapis.com or http://127.0.0.1:4443");
  }
}
