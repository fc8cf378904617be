/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import static dev.permafrost.blob.azure.AzureSettings.stripQuery;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.rest.PagedResponse;
import com.azure.core.util.BinaryData;
import com.azure.core.util.ClientOptions;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.BlobServiceVersion;
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
import com.azure.storage.blob.specialized.BlockBlobClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.permafrost.blob.AbstractBlobStore;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreBuilder;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.blob.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import reactor.netty.resources.ConnectionProvider;

/**
 * A {@link BlobStore} in an Azure Blob Storage container, below an optional prefix: {@code
 * azblob://container/prefix}. Open it by URI through {@link BlobStores#open(URI)} (settings as query parameters)
 * or with {@link #builder()}; both take the same setting names (see {@link AzureSettings} and the module's README),
 * and both reject an unknown setting by name.
 *
 * <p>Credentials, in order of precedence: {@value AzureSettings#CONNECTION_STRING}; {@value AzureSettings#ACCOUNT}
 * with {@value AzureSettings#ACCOUNT_KEY}; {@value AzureSettings#SAS_TOKEN}; a {@link TokenCredential} given to the
 * builder; otherwise the SDK's default credential chain ({@code DefaultAzureCredential}), which needs {@code
 * com.azure:azure-identity} on the class path. Or the builder is given an SDK client, configured by whoever built it
 * ({@link Builder#serviceClient}). No credential ever appears in {@link #describe()}, {@link #toString()} or an
 * exception message.
 *
 * <p>Reads fetch the blob in ranged requests of {@value AzureSettings#DOWNLOAD_CHUNK_SIZE} bytes, on the SDK's
 * asynchronous client so that closing the stream from another thread aborts the request in flight, each pinned to
 * the blob's ETag so that a blob replaced mid-read fails instead of mixing versions. Writes are atomic for readers:
 * a blob up to {@value AzureSettings#SINGLE_UPLOAD_THRESHOLD} is sent in one Put Blob request; a larger one is staged
 * in blocks of {@value AzureSettings#PART_SIZE} and appears only when its block list is committed. If the source
 * stream fails or ends early, nothing is committed (staged blocks that are never committed are discarded by the
 * service after a week).
 *
 * <p>Retries, deadlines, hedging and rate limits are not this class's: they belong to the {@link StorePolicy}
 * (settings {@code max_retries}, {@code retry_delay}, ... in the URI), which {@link BlobStores#open(URI)} puts around
 * this store. The SDK sends every request exactly once (its retry policy allows one try, and a broken download is
 * not resumed), so that attempts are never multiplied by two retry layers; each failure is a {@link
 * BlobStoreException} that says whether it is {@linkplain BlobStoreException#isRetryable() worth retrying}. A store
 * built with {@link #builder()} has no policy: {@code SnapshotRepository.open(store)} gives it the default one, or
 * wrap it with {@code StorePolicy.builder()...build().apply(store)}.
 *
 * <p>{@link #close()} releases the connections of the HTTP client the store built (a Reactor Netty connection pool
 * of its own); the Azure SDK's clients themselves hold nothing to close. A client given to the builder is never
 * closed or otherwise changed by the store.
 */
public final class AzureBlobStore extends AbstractBlobStore {
  /** The URI scheme. */
  public static final String SCHEME = "azblob";

  /** How long the store's own HTTP client keeps an idle connection (the SDK's default). */
  private static final Duration CONNECTION_IDLE_TIME = Duration.ofSeconds(60);
  /** The most connections the store's own HTTP client opens (the SDK's default). */
  private static final int MAX_CONNECTIONS = 500;

  private static final Pattern CONTAINER_NAME = Pattern.compile("[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}|\\$root|\\$web|\\$logs");

  private final String container;
  private final String prefix; // "" or ends with '/'
  private final String account;
  private final String endpoint; // without query
  private final String description;
  private final AzureErrors errors;
  private final BlobContainerClient containerClient;
  /** The same container on the asynchronous client, for reads that another thread can abort. */
  private final BlobContainerAsyncClient asyncContainerClient;
  /** The connection pool of the HTTP client this store built, released on close; null on a given client. */
  private final ConnectionProvider ownConnections;
  private final long partSize;
  private final long singleUploadThreshold;
  private final int downloadChunkSize;
  private final int listPageSize;
  private final AtomicLong listPagesFetched = new AtomicLong();

  private AzureBlobStore(
      String container,
      String prefix,
      AzureSettings settings,
      BlobServiceClient serviceClient,
      BlobServiceAsyncClient asyncServiceClient,
      ConnectionProvider ownConnections) {
    this.container = container;
    this.prefix = prefix;
    this.partSize = settings.partSize;
    this.singleUploadThreshold = settings.singleUploadThreshold;
    this.downloadChunkSize = settings.downloadChunkSize;
    this.listPageSize = settings.listPageSize;
    this.account = serviceClient.getAccountName();
    this.endpoint = stripQuery(serviceClient.getAccountUrl());
    this.containerClient = serviceClient.getBlobContainerClient(container);
    this.asyncContainerClient = asyncServiceClient.getBlobContainerAsyncClient(container);
    this.ownConnections = ownConnections;
    String where = SCHEME + "://" + container + (prefix.isEmpty() ? "" : "/" + prefix.substring(0, prefix.length() - 1));
    this.description = where + " (account " + account + ", endpoint " + endpoint + ")";
    this.errors = new AzureErrors(description, account, container, endpoint);
  }

  /** A builder for a store; settings use the same names as the URI's query parameters. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens a store for {@code azblob://container/prefix?setting=value&...}, without any {@link StorePolicy}: use
   * {@link BlobStores#open(URI)} for a store with the policy the URI gives ({@code max_retries}, {@code
   * retry_delay}, ...); this method rejects those settings.
   *
   * @throws IllegalArgumentException if the URI or a setting is malformed, or a setting is unknown
   */
  public static AzureBlobStore open(URI uri) {
    return Builder.fromUri(uri).settings(StoreSettings.fromQuery(uri).values()).build();
  }

  /**
   * Opens a store for {@code uri} with settings already parsed from its query (see {@link StoreSettings}), of which
   * the store policy's may already have been read, as {@link BlobStores#open(URI)} does.
   */
  public static AzureBlobStore open(URI uri, StoreSettings settings) {
    return Builder.fromUri(uri).build(settings);
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
  protected InputStream openBlob(String blobName) throws IOException {
    BlobAsyncClientBase asyncBlob = asyncBlob(blobName);
    AzureBlobInputStream.Chunk first;
    try {
      first = AzureBlobInputStream.download(asyncBlob, 0, downloadChunkSize, null).await(AzureBlobStore::notAborted);
    } catch (BlobStorageException e) {
      if (isInvalidRange(e)) {
        // Azure answers a range request on an empty blob with 416: check that this is what happened.
        long size = blobLength(blobName);
        if (size == 0) {
          return InputStream.nullInputStream();
        }
        throw new BlobStoreException(description, blobName, "the service refused to read the blob's first bytes (length " + size + ")", e);
      }
      throw errors.translate(blobName, "read", e);
    } catch (RuntimeException e) {
      throw errors.translate(blobName, "read", e);
    }
    long size = first.total() >= 0 ? first.total() : blobLength(blobName);
    checkFirstChunk(blobName, first, 0, size);
    return new AzureBlobInputStream(errors, this::closed, blobName, asyncBlob, first, 0, size, downloadChunkSize);
  }

  @Override
  protected InputStream openRange(String blobName, long offset, long length) throws IOException {
    BlobAsyncClientBase asyncBlob = asyncBlob(blobName);
    String action = "read of " + BlobStoreException.range(offset, length);
    AzureBlobInputStream.Chunk first;
    try {
      first = AzureBlobInputStream.download(asyncBlob, offset, (int) Math.min(downloadChunkSize, length), null)
          .await(AzureBlobStore::notAborted);
    } catch (BlobStorageException e) {
      if (isInvalidRange(e)) {
        // 416: the offset is at or past the end. Ask for the length so that the message can give it.
        throw pastEnd(blobName, offset, length, blobLength(blobName), e);
      }
      throw errors.translate(blobName, action, e);
    } catch (RuntimeException e) {
      throw errors.translate(blobName, action, e);
    }
    if (first.total() >= 0 && offset + length > first.total()) {
      throw pastEnd(blobName, offset, length, first.total(), null);
    }
    checkFirstChunk(blobName, first, offset, offset + length);
    return new AzureBlobInputStream(
        errors, this::closed, blobName, asyncBlob, first, offset, offset + length, downloadChunkSize);
  }

  /** Nobody else holds the first request of a read, so nobody aborts it. */
  private static IOException notAborted() {
    return new IOException("the first request of a read was aborted");
  }

  /**
   * Fails if the first chunk is shorter than asked for. The blob's length (from the same response) covers the
   * range, so the response was cut short: retryable. (Each chunk is a response of its own, checked as it comes:
   * a whole-blob read has no length to check against but the blob's.)
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

  private static boolean isInvalidRange(BlobStorageException e) {
    return e.getStatusCode() == 416 || BlobErrorCode.INVALID_RANGE.equals(e.getErrorCode());
  }

  @Override
  protected long blobLength(String blobName) throws IOException {
    try {
      return blob(blobName).getProperties().getBlobSize();
    } catch (RuntimeException e) {
      throw errors.translate(blobName, "reading the blob's properties", e);
    }
  }

  // ---------------------------------------------------------------------------------------------- writes

  @Override
  protected void putBlob(String blobName, InputStream data, long length) throws IOException {
    BlockBlobClient blob = blob(blobName).getBlockBlobClient();
    if (length <= singleUploadThreshold) {
      byte[] bytes = readSource(blobName, data, (int) length);
      try {
        blob.uploadWithResponse(
            new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(bytes)).setContentMd5(md5(bytes)), null, Context.NONE);
      } catch (RuntimeException e) {
        throw errors.translate(blobName, "upload of " + length + " bytes", e);
      }
      return;
    }
    // Staged blocks stay invisible until the block list is committed; if anything fails before that, the blob
    // (or the one it was to replace) is untouched.
    long size = Math.max(partSize, ceilDiv(length, AzureSettings.MAX_BLOCKS));
    if (size > AzureSettings.MAX_BLOCK_SIZE) {
      throw new BlobStoreException(description, blobName, "a blob of " + length + " bytes is larger than Azure's limit for a block blob");
    }
    String batch = UUID.randomUUID().toString();
    List<String> blockIds = new ArrayList<>();
    long written = 0;
    while (written < length) {
      int n = (int) Math.min(size, length - written);
      byte[] bytes = readBlock(blobName, data, n, written, length);
      // Every block id of a blob must have the same length: a fixed-width index after a per-write UUID.
      String id = Base64.getEncoder()
          .encodeToString(String.format("%s-%06d", batch, blockIds.size()).getBytes(StandardCharsets.US_ASCII));
      try {
        blob.stageBlockWithResponse(
            new BlockBlobStageBlockOptions(id, BinaryData.fromBytes(bytes)).setContentMd5(md5(bytes)), null, Context.NONE);
      } catch (RuntimeException e) {
        throw errors.translate(
            blobName, "staging block " + blockIds.size() + " (" + BlobStoreException.range(written, n) + ")", e);
      }
      blockIds.add(id);
      written += n;
    }
    try {
      blob.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(blockIds), null, Context.NONE);
    } catch (RuntimeException e) {
      throw errors.translate(blobName, "committing " + blockIds.size() + " blocks (" + length + " bytes)", e);
    }
  }

  /**
   * Reads the next block of a write's source, {@code n} bytes from {@code position} of {@code total}; fails (before
   * anything is committed, not retryable) if the source breaks or ends, in the words of {@link #readSource}.
   */
  private byte[] readBlock(String blobName, InputStream data, int n, long position, long total) throws IOException {
    byte[] bytes = new byte[n];
    int filled = 0;
    try {
      while (filled < n) {
        int r = data.read(bytes, filled, n - filled);
        if (r < 0) {
          throw new BlobStoreException(description, blobName, "the data to write ended after " + (position + filled)
              + " of the " + total + " bytes announced");
        }
        filled += r;
      }
    } catch (BlobStoreException e) {
      throw e;
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "the data to write failed after " + (position + filled)
          + " of the " + total + " bytes announced: " + e.getMessage(), e);
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
  protected List<BlobMetadata> listBlobs(String listPrefix) throws IOException {
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
      throw errors.translate(null, "listing prefix '" + listPrefix + "'", e);
    }
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  private static boolean isDirectoryMarker(BlobItem item) {
    Map<String, String> metadata = item.getMetadata();
    return metadata != null && "true".equalsIgnoreCase(metadata.get("hdi_isfolder"));
  }

  @Override
  protected void deleteBlob(String blobName) throws IOException {
    try {
      blob(blobName).deleteIfExistsWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE);
    } catch (BlobStorageException e) {
      if (BlobErrorCode.BLOB_NOT_FOUND.equals(e.getErrorCode())) {
        return;
      }
      throw errors.translate(blobName, "delete", e);
    } catch (RuntimeException e) {
      throw errors.translate(blobName, "delete", e);
    }
  }

  // deleteBlobs: one Delete Blob per name (the skeleton's default). Azure's batch delete lives in another artifact,
  // azure-storage-blob-batch, which this module does not depend on.

  /**
   * Releases the connection pool of the HTTP client the store built (without waiting: idle connections are closed,
   * and one still in use when its request ends). A client given to the builder is left alone.
   */
  @Override
  protected void closeStore() {
    if (ownConnections != null) {
      ownConnections.dispose();
    }
  }

  /** Whether the store was closed, after which its streams fetch nothing more. */
  boolean closed() {
    return isClosed();
  }

  /** Whether this store's HTTP connections have been released; for tests. */
  boolean connectionsReleased() {
    return ownConnections != null && ownConnections.isDisposed();
  }

  private BlobClient blob(String blobName) {
    return containerClient.getBlobClient(prefix + blobName);
  }

  private BlobAsyncClientBase asyncBlob(String blobName) {
    return asyncContainerClient.getBlobAsyncClient(prefix + blobName);
  }

  // ---------------------------------------------------------------------------------------------- building

  /**
   * Builds an {@link AzureBlobStore}. Settings take the same names as the URI's query parameters (see {@link
   * AzureSettings}), either through the named methods or {@link #setting(String, String)}; {@link #build()} rejects
   * an unknown name, and {@link #setting(String, String)} a store policy setting.
   *
   * <pre>{@code
   * BlobStore store = AzureBlobStore.builder()
   *     .container("snapshots").prefix("prod/index")
   *     .account("myaccount").sasToken(System.getenv("AZURE_SAS"))
   *     .build();
   * }</pre>
   *
   * <p><b>Bring your own client.</b> {@link #serviceClient(BlobServiceClient)} (and/or {@link
   * #serviceAsyncClient(BlobServiceAsyncClient)}) gives the store an SDK client that is already configured: its
   * endpoint, credential, HTTP client, proxy and timeouts are the client's, so the settings that would configure a
   * client ({@value AzureSettings#ACCOUNT}, {@value AzureSettings#ENDPOINT}, {@value AzureSettings#CONNECTION_STRING},
   * {@value AzureSettings#ACCOUNT_KEY}, {@value AzureSettings#SAS_TOKEN}, {@value AzureSettings#CONNECT_TIMEOUT} and
   * {@value AzureSettings#READ_TIMEOUT}) and {@link #credential(TokenCredential)} are refused next to it. The store never
   * closes or changes a client it was given. Since the store policy retries, such a client should make one attempt
   * per request: build it with {@code retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration)
   * null, null, null, null))}.
   */
  public static final class Builder extends BlobStoreBuilder<Builder> {
    private String container;
    private String prefix = "";
    private TokenCredential tokenCredential;
    private BlobServiceClient serviceClient;
    private BlobServiceAsyncClient serviceAsyncClient;

    private Builder() {
      super(SCHEME);
    }

    /** A builder for the container and prefix of an {@code azblob://container/prefix} URI (its query is not read). */
    static Builder fromUri(URI uri) {
      if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase(SCHEME)) {
        throw new IllegalArgumentException("not an " + SCHEME + ": URI: '" + BlobStores.redact(uri) + "'");
      }
      String authority = uri.getRawAuthority();
      if (authority == null || authority.isEmpty()) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + BlobStores.redact(uri) + "' names no container; use azblob://container/prefix");
      }
      if (authority.contains("@")) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + BlobStores.redact(uri)
                + "' has user info before the container; give credentials as the account_key, sas_token or connection_string settings");
      }
      if (authority.contains(":")) {
        throw new IllegalArgumentException(
            "Azure blob store URI '" + BlobStores.redact(uri)
                + "' has a port after the container; give the service address with the endpoint setting");
      }
      return new Builder().container(authority).prefix(uri.getPath() == null ? "" : uri.getPath());
    }

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

    /** {@value AzureSettings#ACCOUNT}: the storage account name. */
    public Builder account(String account) {
      return setting(AzureSettings.ACCOUNT, account);
    }

    /** {@value AzureSettings#ENDPOINT}: the blob service endpoint URL. */
    public Builder endpoint(String endpoint) {
      return setting(AzureSettings.ENDPOINT, endpoint);
    }

    /** {@value AzureSettings#CONNECTION_STRING}: a storage connection string. */
    public Builder connectionString(String connectionString) {
      return setting(AzureSettings.CONNECTION_STRING, connectionString);
    }

    /** {@value AzureSettings#ACCOUNT_KEY}: the account's shared key. */
    public Builder accountKey(String accountKey) {
      return setting(AzureSettings.ACCOUNT_KEY, accountKey);
    }

    /** {@value AzureSettings#SAS_TOKEN}: a shared access signature. */
    public Builder sasToken(String sasToken) {
      return setting(AzureSettings.SAS_TOKEN, sasToken);
    }

    /**
     * A token credential (e.g. a {@code ManagedIdentityCredential}) to use instead of the default credential
     * chain; only when no connection string, account key or SAS token is given, and not with a given client.
     */
    public Builder credential(TokenCredential credential) {
      this.tokenCredential = Objects.requireNonNull(credential, "credential");
      return this;
    }

    /**
     * An SDK client to use instead of building one: the store sends everything but its reads through it, and its
     * reads through an asynchronous client (so that closing a read stream from another thread aborts its request)
     * that is either {@link #serviceAsyncClient(BlobServiceAsyncClient) given too} or made from this client's
     * pipeline (its HTTP client, credential and policies; not a customer-provided key, which the SDK does not
     * expose: with one, give the asynchronous client too). The client should make one attempt per request (see
     * {@link Builder}); the store never closes it.
     */
    public Builder serviceClient(BlobServiceClient client) {
      this.serviceClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * An asynchronous SDK client for the store's reads, usually built by the same {@link BlobServiceClientBuilder}
     * as the {@link #serviceClient(BlobServiceClient) service client}; given alone, the store makes its synchronous
     * twin from this client's pipeline. Both must be for the same account URL. The store never closes it.
     */
    public Builder serviceAsyncClient(BlobServiceAsyncClient client) {
      this.serviceAsyncClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /** {@value AzureSettings#CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration timeout) {
      return setting(AzureSettings.CONNECT_TIMEOUT, timeout);
    }

    /** {@value AzureSettings#READ_TIMEOUT}. */
    public Builder readTimeout(Duration timeout) {
      return setting(AzureSettings.READ_TIMEOUT, timeout);
    }

    /** {@value AzureSettings#PART_SIZE}, in bytes: the size of each block of a split upload. */
    public Builder partSize(long bytes) {
      return setting(AzureSettings.PART_SIZE, Long.toString(bytes));
    }

    /** {@value AzureSettings#SINGLE_UPLOAD_THRESHOLD}, in bytes. */
    public Builder singleUploadThreshold(long bytes) {
      return setting(AzureSettings.SINGLE_UPLOAD_THRESHOLD, Long.toString(bytes));
    }

    /** {@value AzureSettings#DOWNLOAD_CHUNK_SIZE}, in bytes. */
    public Builder downloadChunkSize(long bytes) {
      return setting(AzureSettings.DOWNLOAD_CHUNK_SIZE, Long.toString(bytes));
    }

    /** {@value AzureSettings#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int size) {
      return setting(AzureSettings.LIST_PAGE_SIZE, Integer.toString(size));
    }

    /**
     * Creates the store. No request is sent: a missing container or a wrong credential shows up on the first
     * operation (use {@link dev.permafrost.blob.BlobStoreVerifier} to check a store up front).
     *
     * @throws IllegalArgumentException if a setting is unknown, malformed or conflicts with another, or with a
     *     given client
     */
    public AzureBlobStore build() {
      return build(storeSettings());
    }

    private AzureBlobStore build(StoreSettings s) {
      if (container == null) {
        throw new IllegalArgumentException("Azure blob store: no container given");
      }
      if (!CONTAINER_NAME.matcher(container).matches()) {
        throw new IllegalArgumentException(
            "Azure blob store: invalid container name '" + container
                + "' (3 to 63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit)");
      }
      String normalizedPrefix = BlobNames.normalizePrefix(prefix, "Azure blob store prefix");
      boolean clientGiven = serviceClient != null || serviceAsyncClient != null;
      if (clientGiven && tokenCredential != null) {
        throw new IllegalArgumentException(
            "Azure blob store: a credential and a client were both given; the store uses the client as it is, so give"
                + " the credential to the client's builder instead");
      }
      AzureSettings settings = AzureSettings.parse(s, clientGiven);
      if (clientGiven) {
        return onGivenClients(normalizedPrefix, settings);
      }
      return onOwnClients(normalizedPrefix, settings);
    }

    /** A store on the client(s) given, completed by a twin on the same pipeline; nothing of its own to release. */
    private AzureBlobStore onGivenClients(String normalizedPrefix, AzureSettings settings) {
      BlobServiceClient sync = serviceClient;
      BlobServiceAsyncClient async = serviceAsyncClient;
      if (sync != null && async != null) {
        if (!Objects.equals(stripQuery(sync.getAccountUrl()), stripQuery(async.getAccountUrl()))) {
          throw new IllegalArgumentException(
              "Azure blob store: the service client (" + stripQuery(sync.getAccountUrl()) + ") and the asynchronous"
                  + " service client (" + stripQuery(async.getAccountUrl()) + ") are for different accounts; give"
                  + " clients built by the same builder, or only one of them");
        }
      } else if (async == null) {
        async = twin(sync.getHttpPipeline(), sync.getAccountUrl(), sync.getServiceVersion()).buildAsyncClient();
      } else {
        sync = twin(async.getHttpPipeline(), async.getAccountUrl(), async.getServiceVersion()).buildClient();
      }
      return new AzureBlobStore(container, normalizedPrefix, settings, sync, async, null);
    }

    /** A client builder on the same pipeline (HTTP client, credential, policies), account URL and service version. */
    private static BlobServiceClientBuilder twin(
        HttpPipeline pipeline, String accountUrl, BlobServiceVersion version) {
      return new BlobServiceClientBuilder().pipeline(pipeline).endpoint(accountUrl).serviceVersion(version);
    }

    /**
     * A store on clients it builds from the settings, over an HTTP client with a connection pool of its own that
     * {@link AzureBlobStore#close()} releases. The SDK makes one attempt per request.
     */
    private AzureBlobStore onOwnClients(String normalizedPrefix, AzureSettings s) {
      BlobServiceClientBuilder sb = new BlobServiceClientBuilder();
      if (s.connectionString != null) {
        try {
          sb.connectionString(s.connectionString);
        } catch (RuntimeException e) {
          // The SDK's message may quote the string; do not pass it on.
          throw new IllegalArgumentException(
              "Azure blob store setting '" + AzureSettings.CONNECTION_STRING + "' is malformed (its value is not shown)");
        }
      } else {
        sb.endpoint(s.endpointOrDefault());
        if (s.accountKey != null) {
          sb.credential(new StorageSharedKeyCredential(s.account, s.accountKey));
        } else if (s.sasToken != null) {
          sb.sasToken(s.sasToken);
        } else if (tokenCredential != null) {
          sb.credential(tokenCredential);
        } else {
          sb.credential(DefaultCredential.create());
        }
      }
      sb.clientOptions(new ClientOptions().setApplicationId("permafrost"));
      // One try per request: the store policy is the only retry layer. (Reactor Netty may still reconnect once when a
      // pooled connection turns out to be closed before the request was sent; the service never saw that request.)
      sb.retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration) null, null, null, null));
      // Reactor Netty, built here rather than found by HttpClient.createDefault, so that the store holds the
      // connection pool it must release on close (the SDK's clients have no close), and aborting a read closes its
      // connection whatever other HTTP client implementations are on the class path.
      ConnectionProvider connections = ConnectionProvider.builder("permafrost-azure")
          .maxIdleTime(CONNECTION_IDLE_TIME)
          .maxConnections(MAX_CONNECTIONS)
          .build();
      HttpClient httpClient = new NettyAsyncHttpClientBuilder()
          .connectionProvider(connections)
          .connectTimeout(s.connectTimeout)
          .responseTimeout(s.readTimeout)
          .readTimeout(s.readTimeout)
          .writeTimeout(s.readTimeout)
          .build();
      sb.httpClient(httpClient);
      BlobServiceClient serviceClient;
      BlobServiceAsyncClient asyncServiceClient;
      try {
        serviceClient = sb.buildClient();
        asyncServiceClient = sb.buildAsyncClient(); // same HTTP client, so the same connection pool
      } catch (IllegalArgumentException | IllegalStateException e) {
        connections.dispose();
        throw new IllegalArgumentException("Azure blob store: cannot build the client: " + e.getMessage(), e);
      }
      return new AzureBlobStore(container, normalizedPrefix, s, serviceClient, asyncServiceClient, connections);
    }
  }
}
