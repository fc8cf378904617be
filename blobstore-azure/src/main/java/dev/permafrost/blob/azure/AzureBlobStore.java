/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.rest.PagedResponse;
import com.azure.core.util.BinaryData;
import com.azure.core.util.ClientOptions;
import com.azure.core.util.Context;
import com.azure.core.util.HttpClientOptions;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.options.BlockBlobStageBlockOptions;
import com.azure.storage.blob.specialized.BlobAsyncClientBase;
import com.azure.storage.blob.specialized.BlobClientBase;
import com.azure.storage.blob.specialized.BlockBlobClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.blob.StoreSettings;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A {@link BlobStore} in an Azure Blob Storage container, below an optional prefix: {@code
 * azblob://container/prefix}. Open it by URI through {@link dev.permafrost.blob.BlobStores#open(URI)} (settings
 * as query parameters) or with {@link #builder()}; both take the same setting names (see the constants below and
 * the module's README), and both reject an unknown setting by name.
 *
 * <p>Credentials, in order of precedence: {@value #CONNECTION_STRING}; {@value #ACCOUNT} with {@value
 * #ACCOUNT_KEY}; {@value #SAS_TOKEN}; a {@link TokenCredential} given to the builder; otherwise the SDK's
 * default credential chain ({@code DefaultAzureCredential}), which needs {@code com.azure:azure-identity} on the
 * class path. No credential ever appears in {@link #describe()}, {@link #toString()} or an exception message.
 *
 * <p>Reads fetch the blob in ranged requests of {@value #DOWNLOAD_CHUNK_SIZE} bytes, pinned to the blob's ETag so
 * that a blob replaced mid-read fails instead of mixing versions. Writes are atomic for readers: a blob up to
 * {@value #SINGLE_UPLOAD_THRESHOLD} is sent in one Put Blob request; a larger one is staged in blocks of {@value
 * #BLOCK_SIZE} and appears only when its block list is committed. If the source stream fails or ends early,
 * nothing is committed (staged blocks that are never committed are discarded by the service after a week).
 *
 * <p>Retries, deadlines, hedging and rate limits are not this class's: they belong to the {@link StorePolicy}
 * (settings {@code max_retries}, {@code retry_delay}, ... in the URI), which {@link
 * dev.permafrost.blob.BlobStores#open(URI)} puts around this store. The SDK sends every request exactly once
 * (its retry policy allows one try, and a broken download is not resumed), so that attempts are never
 * multiplied by two retry layers; each failure is a {@link BlobStoreException} that says whether it is {@linkplain
 * BlobStoreException#isRetryable() worth retrying}. A store built with {@link #builder()} has no policy: {@code
 * SnapshotRepository.open(store)} gives it the default one, or wrap it with {@code
 * StorePolicy.builder()...build().apply(store)}. A read stream may be closed from another thread (as the policy's
 * deadline timer does), which aborts its request in flight.
 */
public final class AzureBlobStore implements BlobStore {
  /** The URI scheme. */
  public static final String SCHEME = "azblob";

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
  /** How long to wait for a TCP connection to the endpoint. */
  public static final String CONNECT_TIMEOUT = "connect_timeout";
  /** How long to wait for a response, and between two reads of a response body. */
  public static final String READ_TIMEOUT = "read_timeout";
  /** The size of each staged block of a large upload. */
  public static final String BLOCK_SIZE = "block_size";
  /** Blobs up to this size are uploaded in a single request; larger ones in blocks. */
  public static final String SINGLE_UPLOAD_THRESHOLD = "single_upload_threshold";
  /** The size of each ranged GET a read stream issues. */
  public static final String DOWNLOAD_CHUNK_SIZE = "download_chunk_size";
  /** How many blobs a listing asks for per page. */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(60);
  static final long DEFAULT_BLOCK_SIZE = 8L << 20;
  static final long DEFAULT_SINGLE_UPLOAD_THRESHOLD = 16L << 20;
  static final long DEFAULT_DOWNLOAD_CHUNK_SIZE = 8L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 5000;

  /** Azure's limit on the number of blocks in one block blob. */
  static final int MAX_BLOCKS = 50_000;
  /** Azure's limits on one staged block and one Put Blob request (4000 MiB and 5000 MiB). */
  static final long MAX_BLOCK_SIZE = 4000L << 20;
  static final long MAX_SINGLE_UPLOAD = 5000L << 20;

  private static final Pattern CONTAINER_NAME = Pattern.compile("[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}|\\$root|\\$web|\\$logs");

  private final String container;
  private final String prefix; // "" or ends with '/'
  private final String account;
  private final String endpoint; // without query
  private final String description;
  private final BlobContainerClient containerClient;
  /** The same container on the asynchronous client, for reads that another thread can abort. */
  private final BlobContainerAsyncClient asyncContainerClient;
  private final long blockSize;
  private final long singleUploadThreshold;
  private final int downloadChunkSize;
  private final int listPageSize;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong listPagesFetched = new AtomicLong();

  private AzureBlobStore(Config config, BlobServiceClient serviceClient, BlobServiceAsyncClient asyncServiceClient) {
    this.container = config.container;
    this.prefix = config.prefix;
    this.blockSize = config.blockSize;
    this.singleUploadThreshold = config.singleUploadThreshold;
    this.downloadChunkSize = config.downloadChunkSize;
    this.listPageSize = config.listPageSize;
    this.account = serviceClient.getAccountName();
    this.endpoint = stripQuery(serviceClient.getAccountUrl());
    this.containerClient = serviceClient.getBlobContainerClient(container);
    this.asyncContainerClient = asyncServiceClient.getBlobContainerAsyncClient(container);
    String where = SCHEME + "://" + container + (prefix.isEmpty() ? "" : "/" + prefix.substring(0, prefix.length() - 1));
    this.description = where + " (account " + account + ", endpoint " + endpoint + ")";
  }

  /** A builder for a store; settings use the same names as the URI's query parameters. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens a store for {@code azblob://container/prefix?setting=value&...}, without any {@link StorePolicy}: use
   * {@link dev.permafrost.blob.BlobStores#open(URI)} for a store with the policy the URI gives ({@code
   * max_retries}, {@code retry_delay}, ...); this method rejects those settings.
   *
   * @throws IllegalArgumentException if the URI or a setting is malformed, or a setting is unknown
   */
  public static AzureBlobStore open(URI uri) {
    rejectPolicySettings(queryNames(uri));
    return open(uri, StoreSettings.fromQuery(uri));
  }

  /** Opens a store for {@code uri} with settings already parsed from its query (see {@link StoreSettings}). */
  public static AzureBlobStore open(URI uri, StoreSettings settings) {
    Builder b = Builder.fromUri(uri);
    b.settingsFrom = settings;
    return b.build();
  }

  /** The container. */
  public String container() {
    return container;
  }

  /** The prefix every blob name is placed below: empty, or ending in '/'. */
  public String prefix() {
    return prefix;
  }

  /** The storage account name. */
  public String account() {
    return account;
  }

  /** The blob service endpoint (without any query). */
  public String endpoint() {
    return endpoint;
  }

  /** How many listing pages this store has fetched so far; for tests that check paging. */
  long listPagesFetched() {
    return listPagesFetched.get();
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public String toString() {
    return "AzureBlobStore(" + description + ")";
  }

  // ---------------------------------------------------------------------------------------------- reads

  @Override
  public InputStream read(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    BlobClientBase blob = blob(blobName);
    BlobAsyncClientBase asyncBlob = asyncBlob(blobName);
    AzureBlobInputStream.Chunk first;
    try {
      first = AzureBlobInputStream.download(asyncBlob, 0, downloadChunkSize, null).await(AzureBlobStore::notAborted);
    } catch (BlobStorageException e) {
      if (isInvalidRange(e)) {
        // Azure answers a range request on an empty blob with 416: check that this is what happened.
        long size = lengthOf(blobName, blob);
        if (size == 0) {
          return InputStream.nullInputStream();
        }
        throw new BlobStoreException(description, blobName, "the service refused to read the blob's first bytes (length " + size + ")", e);
      }
      throw AzureErrors.translate(this, blobName, "read", e);
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, blobName, "read", e);
    }
    long size = first.total() >= 0 ? first.total() : lengthOf(blobName, blob);
    checkFirstChunk(blobName, first, 0, size);
    return new AzureBlobInputStream(this, blobName, asyncBlob, first, 0, size, downloadChunkSize);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "negative offset or length reading " + BlobStoreException.range(offset, length) + " of blob " + blobName);
    }
    BlobClientBase blob = blob(blobName);
    if (length == 0) {
      long size = lengthOf(blobName, blob);
      if (offset > size) {
        throw pastTheEnd(blobName, offset, length, size, null);
      }
      return InputStream.nullInputStream();
    }
    BlobAsyncClientBase asyncBlob = asyncBlob(blobName);
    AzureBlobInputStream.Chunk first;
    try {
      first = AzureBlobInputStream.download(asyncBlob, offset, (int) Math.min(downloadChunkSize, length), null)
          .await(AzureBlobStore::notAborted);
    } catch (BlobStorageException e) {
      if (isInvalidRange(e)) {
        // 416: the offset is at or past the end. Ask for the length so that the message can give it.
        throw pastTheEnd(blobName, offset, length, lengthOf(blobName, blob), e);
      }
      throw AzureErrors.translate(this, blobName, "read of " + BlobStoreException.range(offset, length), e);
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, blobName, "read of " + BlobStoreException.range(offset, length), e);
    }
    if (first.total() >= 0 && offset + length > first.total()) {
      throw pastTheEnd(blobName, offset, length, first.total(), null);
    }
    checkFirstChunk(blobName, first, offset, offset + length);
    return new AzureBlobInputStream(this, blobName, asyncBlob, first, offset, offset + length, downloadChunkSize);
  }

  /** Nobody else holds the first request of a read, so nobody aborts it. */
  private static IOException notAborted() {
    return new IOException("the first request of a read was aborted");
  }

  /**
   * Fails if the first chunk is shorter than asked for. The blob's length (from the same response) covers the
   * range, so the response was cut short: retryable.
   */
  private void checkFirstChunk(String blobName, AzureBlobInputStream.Chunk first, long start, long end)
      throws BlobStoreException {
    long expected = Math.min(downloadChunkSize, end - start);
    if (first.length() < expected) {
      throw new BlobStoreException(
          description,
          blobName,
          "the response to the read of " + BlobStoreException.range(start, expected) + " ended after " + first.length()
              + " bytes, at offset " + (start + first.length()) + ", before the end of the requested range at " + end,
          null,
          true);
    }
  }

  private BlobStoreException pastTheEnd(String blobName, long offset, long length, long size, Throwable cause) {
    return new BlobStoreException(
        description,
        blobName,
        "range " + BlobStoreException.range(offset, length) + " is past the end of the blob (length " + size + ")",
        cause);
  }

  private static boolean isInvalidRange(BlobStorageException e) {
    return e.getStatusCode() == 416 || BlobErrorCode.INVALID_RANGE.equals(e.getErrorCode());
  }

  @Override
  public long length(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    return lengthOf(blobName, blob(blobName));
  }

  private long lengthOf(String blobName, BlobClientBase blob) throws IOException {
    try {
      return blob.getProperties().getBlobSize();
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, blobName, "reading the blob's properties", e);
    }
  }

  // ---------------------------------------------------------------------------------------------- writes

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    Objects.requireNonNull(data, "data");
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " writing blob " + blobName);
    }
    BlockBlobClient blob = blob(blobName).getBlockBlobClient();
    if (length <= singleUploadThreshold) {
      byte[] bytes = readSource(blobName, data, (int) length, 0, length);
      try {
        blob.uploadWithResponse(
            new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(bytes)).setContentMd5(md5(bytes)), null, Context.NONE);
      } catch (RuntimeException e) {
        throw AzureErrors.translate(this, blobName, "upload of " + length + " bytes", e);
      }
      return;
    }
    // Staged blocks stay invisible until the block list is committed; if anything fails before that, the blob
    // (or the one it was to replace) is untouched.
    long size = Math.max(blockSize, ceilDiv(length, MAX_BLOCKS));
    if (size > MAX_BLOCK_SIZE) {
      throw new BlobStoreException(description, blobName, "a blob of " + length + " bytes is larger than Azure's limit for a block blob");
    }
    String batch = UUID.randomUUID().toString();
    List<String> blockIds = new ArrayList<>();
    long written = 0;
    while (written < length) {
      int n = (int) Math.min(size, length - written);
      byte[] bytes = readSource(blobName, data, n, written, length);
      // Every block id of a blob must have the same length: a fixed-width index after a per-write UUID.
      String id = Base64.getEncoder()
          .encodeToString(String.format("%s-%06d", batch, blockIds.size()).getBytes(StandardCharsets.US_ASCII));
      try {
        blob.stageBlockWithResponse(
            new BlockBlobStageBlockOptions(id, BinaryData.fromBytes(bytes)).setContentMd5(md5(bytes)), null, Context.NONE);
      } catch (RuntimeException e) {
        throw AzureErrors.translate(
            this, blobName, "staging block " + blockIds.size() + " (" + BlobStoreException.range(written, n) + ")", e);
      }
      blockIds.add(id);
      written += n;
    }
    try {
      blob.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(blockIds), null, Context.NONE);
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, blobName, "committing " + blockIds.size() + " blocks (" + length + " bytes)", e);
    }
  }

  /** Reads exactly {@code n} bytes of the source, failing (before anything is committed) if it breaks or ends. */
  private byte[] readSource(String blobName, InputStream data, int n, long position, long total) throws IOException {
    byte[] bytes = new byte[n];
    int filled = 0;
    try {
      while (filled < n) {
        int r = data.read(bytes, filled, n - filled);
        if (r < 0) {
          throw new EOFException(
              "the data ended after " + (position + filled) + " of the " + total + " bytes announced");
        }
        filled += r;
      }
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "write failed, nothing was written: " + e, e);
    }
    return bytes;
  }

  private static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no MD5", e);
    }
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  // ---------------------------------------------------------------------------------------------- list, delete

  @Override
  public List<BlobMetadata> list(String listPrefix) throws IOException {
    ensureOpen();
    BlobNames.validatePrefix(listPrefix);
    String full = prefix + listPrefix;
    ListBlobsOptions options = new ListBlobsOptions()
        .setMaxResultsPerPage(listPageSize)
        // Metadata tells hierarchical-namespace (ADLS Gen2) directory markers from blobs.
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    if (!full.isEmpty()) {
      options.setPrefix(full);
    }
    List<BlobMetadata> result = new ArrayList<>();
    try {
      for (PagedResponse<BlobItem> page : containerClient.listBlobs(options, null).iterableByPage(listPageSize)) {
        listPagesFetched.incrementAndGet();
        for (BlobItem item : page.getValue()) {
          if (Boolean.TRUE.equals(item.isPrefix()) || isDirectoryMarker(item) || !item.getName().startsWith(full)) {
            continue;
          }
          result.add(new BlobMetadata(item.getName().substring(prefix.length()), item.getProperties().getContentLength()));
        }
      }
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, null, "listing prefix '" + listPrefix + "'", e);
    }
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  private static boolean isDirectoryMarker(BlobItem item) {
    Map<String, String> metadata = item.getMetadata();
    return metadata != null && "true".equalsIgnoreCase(metadata.get("hdi_isfolder"));
  }

  @Override
  public void delete(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    try {
      blob(blobName).deleteIfExistsWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE);
    } catch (BlobStorageException e) {
      if (BlobErrorCode.BLOB_NOT_FOUND.equals(e.getErrorCode())) {
        return;
      }
      throw AzureErrors.translate(this, blobName, "delete", e);
    } catch (RuntimeException e) {
      throw AzureErrors.translate(this, blobName, "delete", e);
    }
  }

  @Override
  public void close() {
    closed.set(true);
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("blob store " + description + " is closed");
    }
  }

  private BlobClient blob(String blobName) {
    return containerClient.getBlobClient(prefix + blobName);
  }

  private BlobAsyncClientBase asyncBlob(String blobName) {
    return asyncContainerClient.getBlobAsyncClient(prefix + blobName);
  }

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

  // ---------------------------------------------------------------------------------------------- configuration

  /** The settings, parsed and checked. */
  private static final class Config {
    String container;
    String prefix;
    long blockSize;
    long singleUploadThreshold;
    int downloadChunkSize;
    int listPageSize;
  }

  /**
   * Builds an {@link AzureBlobStore}. Settings take the same names as the URI's query parameters, either through
   * the named methods or {@link #setting(String, String)}; {@link #build()} rejects an unknown name.
   *
   * <pre>{@code
   * BlobStore store = AzureBlobStore.builder()
   *     .container("snapshots").prefix("prod/index")
   *     .account("myaccount").sasToken(System.getenv("AZURE_SAS"))
   *     .build();
   * }</pre>
   */
  public static final class Builder {
    private String container;
    private String prefix = "";
    private final Map<String, String> settings = new LinkedHashMap<>();
    private TokenCredential tokenCredential;

    private Builder() {}

    static Builder fromUri(URI uri) {
      if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase(SCHEME)) {
        throw new IllegalArgumentException("not an " + SCHEME + ": URI: '" + dev.permafrost.blob.BlobStores.redact(uri) + "'");
      }
      String authority = uri.getRawAuthority();
      if (authority == null || authority.isEmpty()) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + dev.permafrost.blob.BlobStores.redact(uri) + "' names no container; use azblob://container/prefix");
      }
      if (authority.contains("@")) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + dev.permafrost.blob.BlobStores.redact(uri)
                + "' has user info before the container; give credentials as the account_key, sas_token or connection_string settings");
      }
      if (authority.contains(":")) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + dev.permafrost.blob.BlobStores.redact(uri)
                + "' has a port after the container; give the service address with the endpoint setting");
      }
      Builder b = new Builder().container(authority);
      String path = uri.getPath() == null ? "" : uri.getPath();
      b.prefix(path);
      b.settingsFrom = StoreSettings.fromQuery(uri);
      return b;
    }

    private StoreSettings settingsFrom; // when built from a URI

    /** The container (3 to 63 lower-case letters, digits and single hyphens). */
    public Builder container(String container) {
      this.container = Objects.requireNonNull(container, "container");
      return this;
    }

    /** The prefix below which the store keeps its blobs ('/'-separated; leading and trailing '/' are ignored). */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** Sets a setting by its name, as in a URI query; an unknown name fails at {@link #build()}. */
    public Builder setting(String name, String value) {
      settings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** {@value AzureBlobStore#ACCOUNT}: the storage account name. */
    public Builder account(String account) {
      return setting(ACCOUNT, account);
    }

    /** {@value AzureBlobStore#ENDPOINT}: the blob service endpoint URL. */
    public Builder endpoint(String endpoint) {
      return setting(ENDPOINT, endpoint);
    }

    /** {@value AzureBlobStore#CONNECTION_STRING}: a storage connection string. */
    public Builder connectionString(String connectionString) {
      return setting(CONNECTION_STRING, connectionString);
    }

    /** {@value AzureBlobStore#ACCOUNT_KEY}: the account's shared key. */
    public Builder accountKey(String accountKey) {
      return setting(ACCOUNT_KEY, accountKey);
    }

    /** {@value AzureBlobStore#SAS_TOKEN}: a shared access signature. */
    public Builder sasToken(String sasToken) {
      return setting(SAS_TOKEN, sasToken);
    }

    /**
     * A token credential (e.g. a {@code ManagedIdentityCredential}) to use instead of the default credential
     * chain; only when no connection string, account key or SAS token is given.
     */
    public Builder credential(TokenCredential credential) {
      this.tokenCredential = Objects.requireNonNull(credential, "credential");
      return this;
    }

    /** {@value AzureBlobStore#CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration timeout) {
      return setting(CONNECT_TIMEOUT, timeout.toString());
    }

    /** {@value AzureBlobStore#READ_TIMEOUT}. */
    public Builder readTimeout(Duration timeout) {
      return setting(READ_TIMEOUT, timeout.toString());
    }

    /** {@value AzureBlobStore#BLOCK_SIZE}, in bytes. */
    public Builder blockSize(long bytes) {
      return setting(BLOCK_SIZE, Long.toString(bytes));
    }

    /** {@value AzureBlobStore#SINGLE_UPLOAD_THRESHOLD}, in bytes. */
    public Builder singleUploadThreshold(long bytes) {
      return setting(SINGLE_UPLOAD_THRESHOLD, Long.toString(bytes));
    }

    /** {@value AzureBlobStore#DOWNLOAD_CHUNK_SIZE}, in bytes. */
    public Builder downloadChunkSize(long bytes) {
      return setting(DOWNLOAD_CHUNK_SIZE, Long.toString(bytes));
    }

    /** {@value AzureBlobStore#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int size) {
      return setting(LIST_PAGE_SIZE, Integer.toString(size));
    }

    /**
     * Creates the store. No request is sent: a missing container or a wrong credential shows up on the first
     * operation (use {@link dev.permafrost.blob.BlobStoreVerifier} to check a store up front).
     *
     * @throws IllegalArgumentException if a setting is unknown, malformed or conflicts with another
     */
    public AzureBlobStore build() {
      if (container == null) {
        throw new IllegalArgumentException("Azure blob store: no container given");
      }
      if (!CONTAINER_NAME.matcher(container).matches()) {
        throw new IllegalArgumentException(
            "Azure blob store: invalid container name '" + container
                + "' (3 to 63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit)");
      }
      StoreSettings s;
      if (settingsFrom != null) {
        if (!settings.isEmpty()) {
          throw new IllegalStateException("settings come from the URI; the builder adds none");
        }
        s = settingsFrom;
      } else {
        rejectPolicySettings(settings.keySet());
        s = new StoreSettings(SCHEME, settings);
      }
      return create(this, s);
    }
  }

  private static AzureBlobStore create(Builder b, StoreSettings s) {
    String account = emptyToNull(s.get(ACCOUNT, null));
    String endpoint = emptyToNull(s.get(ENDPOINT, null));
    String connectionString = emptyToNull(s.get(CONNECTION_STRING, null));
    String accountKey = emptyToNull(s.get(ACCOUNT_KEY, null));
    String sasToken = emptyToNull(s.get(SAS_TOKEN, null));
    Duration connectTimeout = positive(s, CONNECT_TIMEOUT, s.getDuration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT));
    Duration readTimeout = positive(s, READ_TIMEOUT, s.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT));
    long blockSize = s.getBytes(BLOCK_SIZE, DEFAULT_BLOCK_SIZE);
    long threshold = s.getBytes(SINGLE_UPLOAD_THRESHOLD, DEFAULT_SINGLE_UPLOAD_THRESHOLD);
    long chunk = s.getBytes(DOWNLOAD_CHUNK_SIZE, DEFAULT_DOWNLOAD_CHUNK_SIZE);
    int pageSize = s.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    s.rejectUnknown();

    if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
      throw setting(BLOCK_SIZE, "must be between 1b and " + ByteSizes.format(MAX_BLOCK_SIZE) + ", got " + ByteSizes.format(blockSize));
    }
    if (threshold < 0 || threshold > Math.min(MAX_SINGLE_UPLOAD, Integer.MAX_VALUE - 8)) {
      throw setting(SINGLE_UPLOAD_THRESHOLD, "must be between 0 and 2gb (it is buffered in memory), got " + ByteSizes.format(threshold));
    }
    if (blockSize > Integer.MAX_VALUE - 8) {
      throw setting(BLOCK_SIZE, "must be below 2gb (each block is buffered in memory), got " + ByteSizes.format(blockSize));
    }
    if (chunk < 1 || chunk > (256L << 20)) {
      throw setting(DOWNLOAD_CHUNK_SIZE, "must be between 1b and 256mb (each chunk is buffered in memory), got " + ByteSizes.format(chunk));
    }
    if (pageSize < 1 || pageSize > 5000) {
      throw setting(LIST_PAGE_SIZE, "must be between 1 and 5000, got " + pageSize);
    }

    BlobServiceClientBuilder sb = new BlobServiceClientBuilder();
    if (connectionString != null) {
      for (String[] other : new String[][] {{ACCOUNT, account}, {ENDPOINT, endpoint}, {ACCOUNT_KEY, accountKey}, {SAS_TOKEN, sasToken}}) {
        if (other[1] != null) {
          throw new IllegalArgumentException(
              "Azure blob store settings 'connection_string' and '" + other[0]
                  + "' cannot be combined: the connection string already names the account, endpoint and credential");
        }
      }
      try {
        sb.connectionString(connectionString);
      } catch (RuntimeException e) {
        // The SDK's message may quote the string; do not pass it on.
        throw new IllegalArgumentException("Azure blob store setting 'connection_string' is malformed (its value is not shown)");
      }
    } else {
      if (endpoint == null && account == null) {
        throw new IllegalArgumentException(
            "Azure blob store: set 'account' (the storage account name), 'endpoint' or 'connection_string'");
      }
      if (endpoint != null) {
        checkEndpoint(endpoint);
      }
      sb.endpoint(endpoint != null ? endpoint : "https://" + account + ".blob.core.windows.net");
      if (accountKey != null && sasToken != null) {
        throw new IllegalArgumentException("Azure blob store settings 'account_key' and 'sas_token' cannot be combined; give one");
      }
      if (accountKey != null) {
        if (account == null) {
          throw new IllegalArgumentException("Azure blob store setting 'account_key' needs 'account' (the storage account name)");
        }
        try {
          Base64.getDecoder().decode(accountKey);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("Azure blob store setting 'account_key' is not valid base64 (its value is not shown)");
        }
        sb.credential(new StorageSharedKeyCredential(account, accountKey));
      } else if (sasToken != null) {
        sb.sasToken(sasToken.startsWith("?") ? sasToken.substring(1) : sasToken);
      } else if (b.tokenCredential != null) {
        sb.credential(b.tokenCredential);
      } else {
        sb.credential(DefaultCredential.create());
      }
    }
    HttpClientOptions httpOptions = new HttpClientOptions();
    httpOptions.setConnectTimeout(connectTimeout);
    httpOptions.setResponseTimeout(readTimeout);
    httpOptions.setReadTimeout(readTimeout);
    httpOptions.setWriteTimeout(readTimeout);
    HttpClient httpClient = HttpClient.createDefault(httpOptions);
    sb.httpClient(httpClient);
    sb.clientOptions(new ClientOptions().setApplicationId("permafrost"));
    // One try per request: the store policy is the only retry layer. (Reactor Netty may still reconnect once when a
    // pooled connection turns out to be closed before the request was sent; the service never saw that request.)
    sb.retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration) null, null, null, null));

    Config c = new Config();
    c.container = b.container;
    c.prefix = normalizePrefix(b.prefix);
    c.blockSize = blockSize;
    c.singleUploadThreshold = threshold;
    c.downloadChunkSize = (int) chunk;
    c.listPageSize = pageSize;
    BlobServiceClient serviceClient;
    BlobServiceAsyncClient asyncServiceClient;
    try {
      serviceClient = sb.buildClient();
      asyncServiceClient = sb.buildAsyncClient(); // same HTTP client, so the same connection pool
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("Azure blob store: cannot build the client: " + e.getMessage(), e);
    }
    return new AzureBlobStore(c, serviceClient, asyncServiceClient);
  }

  private static void checkEndpoint(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Azure blob store setting 'endpoint' is not a URL: " + e.getMessage());
    }
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "Azure blob store setting 'endpoint' must be an http(s) URL such as https://myaccount.blob.core.windows.net, got '"
              + stripQuery(endpoint) + "'");
    }
    if (uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "Azure blob store setting 'endpoint' must not carry a query or user info (give a SAS with 'sas_token')");
    }
  }

  static String normalizePrefix(String raw) {
    return BlobNames.normalizePrefix(raw, "Azure blob store prefix");
  }

  private static Duration positive(StoreSettings s, String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw setting(name, "must be positive, got " + d);
    }
    return d;
  }

  /** The store policy's settings, which {@link dev.permafrost.blob.BlobStores#open(URI)} reads before the backend. */
  private static final List<String> POLICY_SETTINGS = List.of(
      StorePolicy.MAX_RETRIES,
      StorePolicy.RETRY_DELAY,
      StorePolicy.RETRY_MAX_DELAY,
      StorePolicy.RETRY_TIME_LIMIT,
      StorePolicy.REQUEST_TIMEOUT,
      StorePolicy.MIN_READ_THROUGHPUT,
      StorePolicy.HEDGE_AFTER,
      StorePolicy.MAX_BYTES_PER_SEC,
      StorePolicy.MAX_CONCURRENT_REQUESTS);

  /**
   * Rejects store policy settings given where nothing would apply them: to the builder, or in a URI given to
   * {@link #open(URI)}. ({@link dev.permafrost.blob.BlobStores#open(URI)} reads them itself before the backend.)
   */
  private static void rejectPolicySettings(Collection<String> names) {
    for (String name : POLICY_SETTINGS) {
      if (names.contains(name)) {
        throw setting(name, "belongs to the store policy (retries, deadlines, hedging, rate limits), not to the backend:"
            + " give it in a URI opened with BlobStores.open, or wrap the store with"
            + " StorePolicy.builder()...build().apply(store)");
      }
    }
  }

  /** The names of the settings in a URI's query. */
  private static List<String> queryNames(URI uri) {
    List<String> names = new ArrayList<>();
    String query = uri.getRawQuery();
    if (query != null) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        names.add(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8));
      }
    }
    return names;
  }

  private static IllegalArgumentException setting(String name, String message) {
    return new IllegalArgumentException("Azure blob store setting '" + name + "' " + message);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
