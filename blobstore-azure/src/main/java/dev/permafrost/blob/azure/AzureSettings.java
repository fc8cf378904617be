/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * The names of the settings of the {@code azblob://} backend, their defaults, and their parsed and checked values.
 * The same names are used as URI query parameters ({@code azblob://container/prefix?account=myaccount&sas_token=...})
 * and with {@link AzureBlobStore.Builder#setting(String, String)}; both are read through {@link StoreSettings}, so
 * an unknown or misspelt setting is rejected by name. Settings that mean the same thing in every backend have the
 * same name in each: {@value #ENDPOINT}, {@value #CONNECT_TIMEOUT}, {@value #READ_TIMEOUT}, {@value #LIST_PAGE_SIZE},
 * {@value #SINGLE_UPLOAD_THRESHOLD} and {@value #PART_SIZE}.
 *
 * <p>Retries, deadlines, hedging and rate limits are no settings of this backend: they belong to the
 * {@link dev.permafrost.blob.StorePolicy} around the store ({@code max_retries}, {@code request_timeout}, ... in an
 * {@code azblob://} URI opened with {@link dev.permafrost.blob.BlobStores#open(URI)}).
 */
public final class AzureSettings {
  /** Storage account name; also gives the default endpoint {@code https://ACCOUNT.blob.core.windows.net}. */
  public static final String ACCOUNT = "account";
  /** Blob service endpoint URL, for Azurite, sovereign clouds and private endpoints. */
  public static final String ENDPOINT = "endpoint";
  /** A full storage connection string (names the account, endpoint and credential itself). */
  public static final String CONNECTION_STRING = "connection_string";
  /** The storage account's shared key (needs {@value #ACCOUNT}). */
  public static final String ACCOUNT_KEY = "account_key";
  /** A shared access signature, with or without the leading '?'. */
  public static final String SAS_TOKEN = "sas_token";
  /** How long to wait for a TCP connection to the endpoint; default 10s. */
  public static final String CONNECT_TIMEOUT = "connect_timeout";
  /** How long to wait for a response, and between two reads (or writes) of a body; default 60s. */
  public static final String READ_TIMEOUT = "read_timeout";
  /** Blobs up to this size are uploaded in a single Put Blob request, larger ones in blocks; default 16mb. */
  public static final String SINGLE_UPLOAD_THRESHOLD = "single_upload_threshold";
  /** The size of each block (part) of a split upload; default 8mb. */
  public static final String PART_SIZE = "part_size";
  /** The size of each ranged GET a read stream issues; default 8mb. */
  public static final String DOWNLOAD_CHUNK_SIZE = "download_chunk_size";
  /** How many blobs a listing asks for per page; default 5000 (the most Azure returns). */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  /**
   * The settings that configure the SDK client: refused next to a client given to the builder (see
   * {@link AzureBlobStore.Builder#serviceClient}), which is configured by whoever built it.
   */
  static final List<String> CLIENT_SETTINGS =
      List.of(ACCOUNT, ENDPOINT, CONNECTION_STRING, ACCOUNT_KEY, SAS_TOKEN, CONNECT_TIMEOUT, READ_TIMEOUT);

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(60);
  static final long DEFAULT_PART_SIZE = 8L << 20;
  static final long DEFAULT_SINGLE_UPLOAD_THRESHOLD = 16L << 20;
  static final long DEFAULT_DOWNLOAD_CHUNK_SIZE = 8L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 5000;

  /** Azure's limit on the number of blocks in one block blob. */
  static final int MAX_BLOCKS = 50_000;
  /** Azure's limit on one staged block (4000 MiB). */
  static final long MAX_BLOCK_SIZE = 4000L << 20;
  /** Azure's limit on one Put Blob request (5000 MiB). */
  static final long MAX_SINGLE_UPLOAD = 5000L << 20;
  /** The largest download chunk: each is buffered in memory. */
  static final long MAX_DOWNLOAD_CHUNK_SIZE = 256L << 20;

  // How to reach the service and authenticate: null when absent, and always null with a given client.
  final String account;
  final String endpoint;
  final String connectionString;
  final String accountKey;
  final String sasToken; // without a leading '?'
  final Duration connectTimeout;
  final Duration readTimeout;
  // How the store uses the service.
  final long partSize;
  final long singleUploadThreshold;
  final int downloadChunkSize;
  final int listPageSize;

  private AzureSettings(StoreSettings s, boolean clientGiven) {
    if (clientGiven) {
      for (String name : CLIENT_SETTINGS) {
        if (s.get(name, null) != null) {
          throw new IllegalArgumentException(
              "Azure blob store setting '" + name + "' configures the SDK client, and the store was given a client"
                  + " (serviceClient or serviceAsyncClient), which it uses as it is: configure that client instead"
                  + " (endpoint, credential, HTTP client and its timeouts), or give the settings without a client");
        }
      }
      account = null;
      endpoint = null;
      connectionString = null;
      accountKey = null;
      sasToken = null;
      connectTimeout = null;
      readTimeout = null;
    } else {
      account = emptyToNull(s.get(ACCOUNT, null));
      endpoint = emptyToNull(s.get(ENDPOINT, null));
      connectionString = emptyToNull(s.get(CONNECTION_STRING, null));
      accountKey = emptyToNull(s.get(ACCOUNT_KEY, null));
      String sas = emptyToNull(s.get(SAS_TOKEN, null));
      sasToken = sas != null && sas.startsWith("?") ? sas.substring(1) : sas;
      connectTimeout = positive(CONNECT_TIMEOUT, s.getDuration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT));
      readTimeout = positive(READ_TIMEOUT, s.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT));
    }
    partSize = s.getBytes(PART_SIZE, DEFAULT_PART_SIZE);
    singleUploadThreshold = s.getBytes(SINGLE_UPLOAD_THRESHOLD, DEFAULT_SINGLE_UPLOAD_THRESHOLD);
    long chunk = s.getBytes(DOWNLOAD_CHUNK_SIZE, DEFAULT_DOWNLOAD_CHUNK_SIZE);
    listPageSize = s.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    s.rejectUnknown();

    if (partSize < 1 || partSize > MAX_BLOCK_SIZE) {
      throw setting(PART_SIZE, "must be between 1b and " + ByteSizes.format(MAX_BLOCK_SIZE) + ", got " + ByteSizes.format(partSize));
    }
    if (partSize > Integer.MAX_VALUE - 8) {
      throw setting(PART_SIZE, "must be below 2gb (each block is buffered in memory), got " + ByteSizes.format(partSize));
    }
    if (singleUploadThreshold < 0 || singleUploadThreshold > Math.min(MAX_SINGLE_UPLOAD, Integer.MAX_VALUE - 8)) {
      throw setting(SINGLE_UPLOAD_THRESHOLD, "must be between 0 and 2gb (it is buffered in memory), got "
          + ByteSizes.format(singleUploadThreshold));
    }
    if (chunk < 1 || chunk > MAX_DOWNLOAD_CHUNK_SIZE) {
      throw setting(DOWNLOAD_CHUNK_SIZE, "must be between 1b and " + ByteSizes.format(MAX_DOWNLOAD_CHUNK_SIZE)
          + " (each chunk is buffered in memory), got " + ByteSizes.format(chunk));
    }
    downloadChunkSize = (int) chunk;
    if (listPageSize < 1 || listPageSize > 5000) {
      throw setting(LIST_PAGE_SIZE, "must be between 1 and 5000, got " + listPageSize);
    }
    if (!clientGiven) {
      checkClientSettings();
    }
  }

  /**
   * Reads every setting, checks the values and how they combine, and rejects any setting it does not know, by name.
   *
   * @param clientGiven whether the builder was given an SDK client, next to which the {@link #CLIENT_SETTINGS} are
   *     refused
   */
  static AzureSettings parse(StoreSettings settings, boolean clientGiven) {
    return new AzureSettings(settings, clientGiven);
  }

  /** How the settings that build the client combine: one way to name the account, one credential at most. */
  private void checkClientSettings() {
    if (connectionString != null) {
      String[][] others = {{ACCOUNT, account}, {ENDPOINT, endpoint}, {ACCOUNT_KEY, accountKey}, {SAS_TOKEN, sasToken}};
      for (String[] other : others) {
        if (other[1] != null) {
          throw new IllegalArgumentException(
              "Azure blob store settings '" + CONNECTION_STRING + "' and '" + other[0]
                  + "' cannot be combined: the connection string already names the account, endpoint and credential");
        }
      }
      return;
    }
    if (endpoint == null && account == null) {
      throw new IllegalArgumentException(
          "Azure blob store: set '" + ACCOUNT + "' (the storage account name), '" + ENDPOINT + "' or '"
              + CONNECTION_STRING + "'");
    }
    if (endpoint != null) {
      checkEndpoint(endpoint);
    }
    if (accountKey != null && sasToken != null) {
      throw new IllegalArgumentException(
          "Azure blob store settings '" + ACCOUNT_KEY + "' and '" + SAS_TOKEN + "' cannot be combined; give one");
    }
    if (accountKey != null) {
      if (account == null) {
        throw new IllegalArgumentException(
            "Azure blob store setting '" + ACCOUNT_KEY + "' needs '" + ACCOUNT + "' (the storage account name)");
      }
      try {
        Base64.getDecoder().decode(accountKey);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Azure blob store setting '" + ACCOUNT_KEY + "' is not valid base64 (its value is not shown)");
      }
    }
  }

  /** The endpoint to use without a connection string: the one given, or the account's public one. */
  String endpointOrDefault() {
    return endpoint != null ? endpoint : "https://" + account + ".blob.core.windows.net";
  }

  private static void checkEndpoint(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Azure blob store setting '" + ENDPOINT + "' is not a URL: " + e.getMessage());
    }
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "Azure blob store setting '" + ENDPOINT + "' must be an http(s) URL such as https://myaccount.blob.core.windows.net,"
              + " got '" + stripQuery(endpoint) + "'");
    }
    if (uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "Azure blob store setting '" + ENDPOINT + "' must not carry a query or user info (give a SAS with '"
              + SAS_TOKEN + "')");
    }
  }

  /** {@code url} without its query and user info (a SAS token in an account URL is a secret); null for null. */
  static String stripQuery(String url) {
    if (url == null) {
      return null;
    }
    try {
      URI uri = new URI(url);
      return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
    } catch (URISyntaxException e) {
      int q = url.indexOf('?');
      return q >= 0 ? url.substring(0, q) : url;
    }
  }

  private static Duration positive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw setting(name, "must be positive, got " + d);
    }
    return d;
  }

  private static IllegalArgumentException setting(String name, String message) {
    return new IllegalArgumentException("Azure blob store setting '" + name + "' " + message);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
