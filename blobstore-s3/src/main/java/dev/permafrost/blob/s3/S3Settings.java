/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The names of the settings of the {@code s3://} backend, their defaults, and their parsed and checked values. The
 * same names are used as URI query parameters ({@code s3://bucket/prefix?region=eu-west-1&part_size=16mb}) and with
 * {@link S3BlobStore.Builder#setting(String, String)}; both are read here, through {@link StoreSettings}, so an
 * unknown or misspelt setting is rejected by name, and a malformed value names the setting at fault.
 *
 * <p>Retries, deadlines, hedging and rate limits are no settings of this backend: they belong to the
 * {@link dev.permafrost.blob.StorePolicy} around the store ({@code max_retries}, {@code request_timeout}, ... in an
 * {@code s3://} URI opened with {@link BlobStores#open(URI)}). The S3 client makes exactly one attempt per request.
 */
public final class S3Settings {
  /** The AWS region; default from the SDK's region chain (or the {@link #PROFILE}), {@code us-east-1} with an endpoint. */
  public static final String REGION = "region";
  /** Endpoint URL overriding AWS's, for MinIO and other S3-compatible stores; default AWS's for the region. */
  public static final String ENDPOINT = "endpoint";
  /** Address buckets as {@code endpoint/bucket} instead of {@code bucket.endpoint}; default true with an endpoint. */
  public static final String PATH_STYLE_ACCESS = "path_style_access";
  /** Access key id; needs {@link #SECRET_KEY}. */
  public static final String ACCESS_KEY = "access_key";
  /** Secret access key; needs {@link #ACCESS_KEY}. Never printed. */
  public static final String SECRET_KEY = "secret_key";
  /** Session token of temporary credentials; needs {@link #ACCESS_KEY} and {@link #SECRET_KEY}. Never printed. */
  public static final String SESSION_TOKEN = "session_token";
  /** A named profile of the AWS config and shared credentials files, for credentials (and region). Never printed. */
  public static final String PROFILE = "profile";
  /** How long to wait for a TCP connection; default 10s. */
  public static final String CONNECT_TIMEOUT = "connect_timeout";
  /** How long a socket read may block (the socket timeout); default 50s. */
  public static final String READ_TIMEOUT = "read_timeout";
  /** The size of the HTTP connection pool; default 50. */
  public static final String MAX_CONNECTIONS = "max_connections";
  /** Blobs of at most this size are written in one PUT, larger ones with a multipart upload; default 16mb. */
  public static final String SINGLE_UPLOAD_THRESHOLD = "single_upload_threshold";
  /** The size of each part of a multipart upload; default 8mb. */
  public static final String PART_SIZE = "part_size";
  /** How many keys one ListObjectsV2 page asks for (1 to 1000); default 1000. */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  /**
   * The settings that configure the S3 client (or its HTTP client or credentials), refused when the builder is
   * given the application's own {@code S3Client}.
   */
  static final List<String> CLIENT_SETTINGS =
      List.of(REGION, ENDPOINT, PATH_STYLE_ACCESS, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, PROFILE, CONNECT_TIMEOUT,
          READ_TIMEOUT, MAX_CONNECTIONS);

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(50);
  static final int DEFAULT_MAX_CONNECTIONS = 50;
  static final long DEFAULT_SINGLE_UPLOAD_THRESHOLD = 16L << 20;
  static final long DEFAULT_PART_SIZE = 8L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 1000;

  /** S3's smallest part (except the last one). */
  static final long MIN_PART_SIZE = 5L << 20;
  /** Parts and single PUTs are buffered in a byte array, so they stay well below 2 GiB. */
  static final long MAX_BUFFERED = 1L << 30;
  /** The most keys S3 returns in one ListObjectsV2 page. */
  static final int MAX_LIST_PAGE_SIZE = 1000;

  /** Where the credentials of the client the store builds come from. */
  enum CredentialsSource {
    /** {@link #ACCESS_KEY} and {@link #SECRET_KEY}. */
    KEYS,
    /** {@link #ACCESS_KEY}, {@link #SECRET_KEY} and {@link #SESSION_TOKEN}: temporary credentials. */
    SESSION,
    /** {@link #PROFILE}. */
    PROFILE,
    /** An {@code AwsCredentialsProvider} given to the builder. */
    PROVIDER,
    /** The application's own {@code S3Client}, given to the builder: its credentials. */
    CLIENT,
    /** The AWS SDK's default provider chain. */
    DEFAULT_CHAIN
  }

  /** Whether the application gave its own client: then none of the client's settings below is set. */
  final boolean clientGiven;
  /** The region setting, or null (then the store's own client takes it from the region chain). */
  final String region;
  /** The endpoint setting, or null. */
  final URI endpoint;
  final boolean pathStyleAccess;
  final String accessKey;
  final String secretKey;
  final String sessionToken;
  final String profile;
  final CredentialsSource credentialsSource;
  final Duration connectTimeout;
  final Duration readTimeout;
  final int maxConnections;
  final long singleUploadThreshold;
  final long partSize;
  final int listPageSize;

  private S3Settings(StoreSettings s, boolean clientGiven, boolean credentialsProviderGiven) {
    this.clientGiven = clientGiven;
    if (clientGiven) {
      List<String> refused = CLIENT_SETTINGS.stream().filter(s.values()::containsKey).toList();
      if (!refused.isEmpty()) {
        throw new IllegalArgumentException(
            "s3 blob store setting(s) " + refused + " configure the S3 client, but the builder was given the"
                + " application's own S3Client: configure that client instead (its region, endpoint, credentials and"
                + " HTTP client), or give these settings without client(...)");
      }
      if (credentialsProviderGiven) {
        throw new IllegalArgumentException(
            "s3 blob store builder was given both an S3Client and an AwsCredentialsProvider: the store uses the"
                + " client as it is, so give the provider to the client instead");
      }
    }
    this.region = emptyToNull(s.get(REGION, null));
    String endpointSetting = emptyToNull(s.get(ENDPOINT, null));
    this.pathStyleAccess = s.getBoolean(PATH_STYLE_ACCESS, endpointSetting != null);
    this.accessKey = emptyToNull(s.get(ACCESS_KEY, null));
    this.secretKey = emptyToNull(s.get(SECRET_KEY, null));
    this.sessionToken = emptyToNull(s.get(SESSION_TOKEN, null));
    this.profile = emptyToNull(s.get(PROFILE, null));
    this.connectTimeout = positive(CONNECT_TIMEOUT, s.getDuration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT));
    this.readTimeout = positive(READ_TIMEOUT, s.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT));
    this.maxConnections = s.getInt(MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS);
    long threshold = s.getBytes(SINGLE_UPLOAD_THRESHOLD, DEFAULT_SINGLE_UPLOAD_THRESHOLD);
    this.partSize = s.getBytes(PART_SIZE, DEFAULT_PART_SIZE);
    this.listPageSize = s.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    s.rejectUnknown();

    if (credentialsProviderGiven) {
      List<String> given = List.of(ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, PROFILE).stream()
          .filter(s.values()::containsKey).toList();
      if (!given.isEmpty()) {
        throw new IllegalArgumentException(
            "s3 blob store builder was given an AwsCredentialsProvider, and the credentials setting(s) " + given
                + " as well: these are two sources of credentials, give only one");
      }
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          "s3 blob store settings '" + ACCESS_KEY + "' and '" + SECRET_KEY + "' go together: give both or neither"
              + " (neither uses the AWS default credentials provider chain)");
    }
    if (sessionToken != null && accessKey == null) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + SESSION_TOKEN + "' needs the '" + ACCESS_KEY + "' and '" + SECRET_KEY
              + "' settings of the temporary credentials it belongs to");
    }
    if (profile != null && accessKey != null) {
      throw new IllegalArgumentException(
          "s3 blob store settings '" + PROFILE + "' and '" + ACCESS_KEY + "' / '" + SECRET_KEY + "' are two sources of"
              + " credentials: give only one");
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + MAX_CONNECTIONS + "' must be at least 1, got " + maxConnections);
    }
    if (partSize < MIN_PART_SIZE || partSize > MAX_BUFFERED) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + PART_SIZE + "' must be between 5mb (S3's smallest part) and 1gb, got "
              + ByteSizes.format(partSize));
    }
    if (threshold < 0 || threshold > MAX_BUFFERED) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + SINGLE_UPLOAD_THRESHOLD + "' must be between 0b and 1gb (a blob sent in one"
              + " request is buffered in memory), got " + ByteSizes.format(threshold));
    }
    this.singleUploadThreshold = threshold;
    if (listPageSize < 1 || listPageSize > MAX_LIST_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + LIST_PAGE_SIZE + "' must be between 1 and 1000, got " + listPageSize);
    }
    this.endpoint = endpointSetting == null ? null : parseEndpoint(endpointSetting);
    if (clientGiven) {
      this.credentialsSource = CredentialsSource.CLIENT;
    } else if (credentialsProviderGiven) {
      this.credentialsSource = CredentialsSource.PROVIDER;
    } else if (sessionToken != null) {
      this.credentialsSource = CredentialsSource.SESSION;
    } else if (accessKey != null) {
      this.credentialsSource = CredentialsSource.KEYS;
    } else if (profile != null) {
      this.credentialsSource = CredentialsSource.PROFILE;
    } else {
      this.credentialsSource = CredentialsSource.DEFAULT_CHAIN;
    }
  }

  /**
   * Reads every setting, rejecting any it does not know, by name, and any that contradict each other or the objects
   * given to the builder.
   *
   * @param clientGiven whether the builder was given the application's {@code S3Client}: then the settings that
   *     configure a client are refused
   * @param credentialsProviderGiven whether the builder was given an {@code AwsCredentialsProvider}: then the
   *     credentials settings are refused
   */
  static S3Settings parse(StoreSettings settings, boolean clientGiven, boolean credentialsProviderGiven) {
    return new S3Settings(settings, clientGiven, credentialsProviderGiven);
  }

  /** Parses the settings of a store opened by URI (no client nor provider given). */
  static S3Settings parse(StoreSettings settings) {
    return parse(settings, false, false);
  }

  private static Duration positive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("s3 blob store setting '" + name + "' must be positive, got " + d);
    }
    return d;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static URI parseEndpoint(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("s3 blob store setting '" + ENDPOINT + "' is not a URL: " + e.getMessage(), e);
    }
    String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + ENDPOINT + "' must be an http(s) URL such as http://127.0.0.1:9000, got '"
              + BlobStores.redact(uri) + "'");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + ENDPOINT + "' must not hold user info; use '" + ACCESS_KEY + "' and '" + SECRET_KEY
              + "'");
    }
    return uri;
  }
}
