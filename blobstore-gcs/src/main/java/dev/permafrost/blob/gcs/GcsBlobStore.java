/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.google.api.client.http.HttpRequestInitializer;
import com.google.api.gax.paging.Page;
import com.google.api.gax.retrying.BasicResultRetryAlgorithm;
import com.google.api.gax.retrying.ResultRetryAlgorithm;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.Credentials;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.ReadChannel;
import com.google.cloud.ServiceOptions;
import com.google.cloud.WriteChannel;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Bucket;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.StorageRetryStrategy;
import dev.permafrost.blob.AbstractBlobStore;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreBuilder;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.blob.StoreSettings;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BlobStore} in a Google Cloud Storage bucket, below an optional prefix: {@code gs://bucket/prefix}.
 * Talks to the JSON API through the google-cloud-storage client, to GCS itself or to any endpoint that speaks
 * it (fake-gcs-server, a private endpoint).
 *
 * <p>Open it by URI with {@link dev.permafrost.blob.BlobStores#open(java.net.URI)}, e.g.
 * {@code gs://my-bucket/snapshots?project_id=my-project}, or with {@link #builder()}; the settings and their
 * names are the same both ways (see {@link GcsSettings}). The builder can also take the application's own
 * {@link Storage} client ({@link Builder#storage}) or {@link Credentials} ({@link Builder#credentials}).
 *
 * <ul>
 *   <li>Writes of at most {@code single_upload_threshold} bytes are sent in one request, with a CRC32C the server
 *       checks; larger ones use a resumable upload in parts of {@code part_size}. Either way GCS creates the
 *       object only when the upload completes, so readers never see a partial blob; if the source stream fails or
 *       comes up short, the upload is never completed and no object appears (an abandoned resumable session
 *       expires on the server).
 *   <li>Ranged reads ask GCS for exactly the range, as one streamed response.
 *   <li><b>One attempt per request.</b> The GCS client's own retries are off: at most one attempt, and a retry
 *       strategy that never retries, so that a read channel never reopens a broken response by itself either.
 *       The HTTP engine ({@link GcsHttp}) never answers a response with another attempt (except that a 401 is
 *       sent once more with a refreshed token), and service-account credentials fetch tokens without retries.
 *       Retries, deadlines, hedging and rate limits are the {@link StorePolicy}'s: {@link
 *       dev.permafrost.blob.BlobStores#open(java.net.URI)} applies the one the URI gives, and
 *       {@code SnapshotRepository.open(store)} the default one to a store from {@link #builder()}.
 *   <li><b>Every failure says whether it may pass</b> ({@link BlobStoreException#isRetryable()}): HTTP 5xx, 408,
 *       429 and rate-limit 403s, refused, reset or cut-short connections, socket and connect time-outs and TLS
 *       failures are retryable; a missing blob or bucket, 400, 401, 403, 412, a range past the end, an invalid
 *       argument, unusable credentials files and an unknown host are not.
 *   <li><b>Read streams can be aborted from another thread.</b> {@code close()} on a stream from {@code read}
 *       may be called by any thread at any time, for instance by the policy's deadline timer while the reading
 *       thread is blocked in {@code read()}: it aborts the HTTP request (its connection is closed, the rest of the
 *       body is not drained) and returns without waiting for the reader; the blocked read then fails at once with
 *       a {@link BlobStoreException} saying the stream was closed. A response read to its end has already given
 *       its connection back to the pool.
 *   <li>A 404 on a blob is told apart from a missing bucket by asking for the bucket once.
 * </ul>
 *
 * <p>On an application's own {@link Storage} ({@link Builder#storage}), the store makes the same calls, but the
 * client's retries, time-outs and transport are the application's: see there.
 *
 * <p>Thread-safe. Error messages name the backend, the bucket, the prefix, the endpoint and the blob; they
 * never contain credentials.
 */
public final class GcsBlobStore extends AbstractBlobStore {
  /** The URI scheme: {@code gs}. */
  public static final String SCHEME = "gs";

  private static final Logger LOG = LoggerFactory.getLogger(GcsBlobStore.class);
  private static final int BATCH_SIZE = 100;
  /** How much a read fetches before returning, so that "not found" and "past the end" surface early. */
  private static final int FIRST_READ = 8192;

  private final Storage storage;
  /** The HTTP engine under the client the store built; null on the application's {@link Storage}. */
  private final GcsHttp http;
  private final String bucket;
  private final String prefix;
  private final GcsSettings settings;
  private final String description;
  private final GcsErrors errors;
  private volatile boolean bucketSeen;

  private GcsBlobStore(
      Storage storage, GcsHttp http, String bucket, String prefix, GcsSettings settings, String endpoint) {
    this.storage = storage;
    this.http = http;
    this.bucket = bucket;
    this.prefix = prefix;
    this.settings = settings;
    this.description = describe(bucket, prefix, endpoint);
    this.errors = new GcsErrors(description, bucket, endpoint, settings, this::bucketExists);
  }

  /** A builder for a store; {@link Builder#bucket(String)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Opens a store on {@code bucket} below {@code prefix} with the given settings, rejecting unknown ones. */
  static GcsBlobStore open(String bucket, String prefix, StoreSettings storeSettings) throws IOException {
    return open(bucket, prefix, storeSettings, null, null);
  }

  /**
   * Opens a store on {@code bucket} below {@code prefix}: on {@code givenStorage} if there is one, else on a client
   * of its own, with {@code givenCredentials} if there are some, else the credentials the settings name.
   */
  private static GcsBlobStore open(String bucket, String prefix, StoreSettings storeSettings, Storage givenStorage,
      Credentials givenCredentials) throws IOException {
    String normalizedPrefix = GcsSettings.normalizePrefix(prefix);
    GcsSettings.validateBucket(bucket);
    if (givenStorage != null) {
      if (givenCredentials != null) {
        throw new IllegalArgumentException("gs blob store: storage(...) and credentials(...) cannot be combined; the"
            + " given Storage authenticates with its own credentials");
      }
      GcsSettings settings = GcsSettings.parse(storeSettings, GcsSettings.CredentialsMode.CLIENT);
      String endpoint = endpointOf(givenStorage);
      warnIfRetrying(givenStorage, describe(bucket, normalizedPrefix, endpoint));
      return new GcsBlobStore(givenStorage, null, bucket, normalizedPrefix, settings, endpoint);
    }
    GcsSettings settings = GcsSettings.parse(
        storeSettings, givenCredentials == null ? null : GcsSettings.CredentialsMode.GIVEN);
    String description = describe(bucket, normalizedPrefix, settings.endpoint);
    Credentials credentials = givenCredentials != null ? givenCredentials : credentials(settings, description);
    String projectId = settings.projectId;
    if (projectId == null && credentials instanceof ServiceAccountCredentials sa && sa.getProjectId() != null) {
      projectId = sa.getProjectId();
    }
    if (projectId == null && settings.credentialsMode == GcsSettings.CredentialsMode.NONE) {
      // Object operations need no project; setting one keeps the client from probing the environment for it.
      projectId = "permafrost-no-project";
    }
    // Exactly one attempt per request: the store policy is the one place that retries. Max attempts 1 (0 would
    // mean unlimited) bounds the SDK's retrier; the never-retry strategy also stops a read channel from reopening
    // a response that broke part way, which it does whenever the strategy calls the failure retryable.
    RetrySettings oneAttempt = StorageOptions.getDefaultRetrySettings().toBuilder().setMaxAttempts(1).build();
    GcsHttp http = new GcsHttp(settings.connectTimeout, settings.readTimeout);
    StorageOptions.Builder options =
        StorageOptions.http()
            .setHost(settings.endpoint)
            .setCredentials(credentials)
            .setTransportOptions(new OneResendTransportOptions(
                HttpTransportOptions.newBuilder()
                    .setHttpTransportFactory(http::transport)
                    .setConnectTimeout(Math.toIntExact(settings.connectTimeout.toMillis()))
                    .setReadTimeout(Math.toIntExact(settings.readTimeout.toMillis()))))
            .setRetrySettings(oneAttempt)
            .setStorageRetryStrategy(NeverRetry.INSTANCE);
    if (projectId != null) {
      options.setProjectId(projectId);
    }
    Storage storage;
    try {
      storage = options.build().getService();
    } catch (RuntimeException e) {
      http.close();
      throw new BlobStoreException(description, null, "cannot create the GCS client: " + GcsErrors.detail(e), e);
    }
    return new GcsBlobStore(storage, http, bucket, normalizedPrefix, settings, settings.endpoint);
  }

  private static String describe(String bucket, String prefix, String endpoint) {
    return SCHEME + "://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix.substring(0, prefix.length() - 1))
        + " (endpoint " + endpoint + ")";
  }

  /** The host of an application's client, for messages: without user info or query, which could hold secrets. */
  private static String endpointOf(Storage storage) {
    String host;
    try {
      host = storage.getOptions().getHost();
    } catch (RuntimeException e) {
      host = null;
    }
    if (host == null || host.isBlank()) {
      return "of the given Storage";
    }
    try {
      URI uri = URI.create(host.trim());
      if (uri.getRawUserInfo() == null && uri.getRawQuery() == null && uri.getRawFragment() == null) {
        return host.trim();
      }
      if (uri.getHost() != null) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
      }
    } catch (IllegalArgumentException e) {
      // not a URI: not shown
    }
    return "of the given Storage";
  }

  /** An application's client that retries by itself multiplies the store policy's attempts: say so, once. */
  private static void warnIfRetrying(Storage storage, String description) {
    RetrySettings retry;
    try {
      retry = storage.getOptions().getRetrySettings();
    } catch (RuntimeException e) {
      return;
    }
    if (retry != null && retry.getMaxAttempts() != 1) {
      LOG.warn("the Storage given to the gs blob store {} retries requests itself (max attempts {}), and the store"
              + " policy retries them too, so attempts multiply: build the Storage with retry settings of one"
              + " attempt (RetrySettings maxAttempts 1) and a StorageRetryStrategy that never retries",
          description, retry.getMaxAttempts() == 0 ? "unlimited" : retry.getMaxAttempts());
    }
  }

  /**
   * Transport options whose requests are sent again at most once by google-http-client. It resends a request only
   * when an "unsuccessful response handler" asks for it: the credentials' handler does on a 401, after refreshing
   * the access token (which is how an expired or revoked token gets replaced), and would do it up to 10 times
   * (google-http-client's default) against an endpoint that keeps answering 401. A redirect would count too; the
   * JSON API sends none.
   */
  private static final class OneResendTransportOptions extends HttpTransportOptions {
    private static final long serialVersionUID = 1L;

    OneResendTransportOptions(HttpTransportOptions.Builder builder) {
      super(builder);
    }

    @Override
    public HttpRequestInitializer getHttpRequestInitializer(ServiceOptions<?, ?> serviceOptions) {
      HttpRequestInitializer initializer = super.getHttpRequestInitializer(serviceOptions);
      return request -> {
        initializer.initialize(request);
        request.setNumberOfRetries(1);
      };
    }
  }

  /** The SDK's retry strategy, as used here: no failure is worth another attempt. */
  private enum NeverRetry implements StorageRetryStrategy {
    INSTANCE;

    private static final ResultRetryAlgorithm<?> NEVER = new BasicResultRetryAlgorithm<Object>() {
      @Override
      public boolean shouldRetry(Throwable previousThrowable, Object previousResponse) {
        return false;
      }
    };

    @Override
    public ResultRetryAlgorithm<?> getIdempotentHandler() {
      return NEVER;
    }

    @Override
    public ResultRetryAlgorithm<?> getNonidempotentHandler() {
      return NEVER;
    }
  }

  private static Credentials credentials(GcsSettings settings, String description) throws IOException {
    switch (settings.credentialsMode) {
      case NONE:
        return NoCredentials.getInstance();
      case FILE:
        Path file = settings.credentialsFile;
        byte[] json;
        try {
          json = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
          throw new BlobStoreException(
              description, null,
              "GCS credentials_file '" + file + "' does not exist; check the path of the service-account JSON key file");
        } catch (IOException e) {
          throw new BlobStoreException(
              description, null,
              "GCS credentials_file '" + file + "' cannot be read (" + e.getClass().getSimpleName()
                  + "); check that it is a readable file");
        }
        try {
          // Token requests without the auth library's own retries: the store policy retries the request that
          // needed the token when the failure was transient (see GcsErrors.retryable).
          return ServiceAccountCredentials.fromStream(new ByteArrayInputStream(json))
              .createWithCustomRetryStrategy(false);
        } catch (IOException | RuntimeException e) {
          // No cause and no parser message: either could quote the file's contents, which hold a private key.
          throw new BlobStoreException(
              description, null,
              "GCS credentials_file '" + file + "' is not a usable service-account JSON key file ("
                  + e.getClass().getSimpleName() + "); download a JSON key for the service account, or use"
                  + " application-default credentials by leaving credentials_file out");
        } finally {
          Arrays.fill(json, (byte) 0);
        }
      case DEFAULT:
      default:
        try {
          return GoogleCredentials.getApplicationDefault().createWithCustomRetryStrategy(false);
        } catch (IOException e) {
          throw new BlobStoreException(
              description, null,
              "no GCS credentials: application-default credentials were not found; set credentials_file to a"
                  + " service-account JSON key, set GOOGLE_APPLICATION_CREDENTIALS, run 'gcloud auth"
                  + " application-default login', or use credentials=none for an emulator");
        }
    }
  }

  /** The bucket. */
  public String bucket() {
    return bucket;
  }

  /** The prefix below which blobs are kept: empty, or ending in '/'. */
  public String prefix() {
    return prefix;
  }

  @Override
  public String describe() {
    return description;
  }

  /** The settings in use (for tests). */
  GcsSettings settings() {
    return settings;
  }

  private BlobId id(String blobName) {
    return BlobId.of(bucket, prefix + blobName);
  }

  // ---------------------------------------------------------------------------------------------- reads

  @Override
  protected InputStream openBlob(String blobName) throws IOException {
    return open(blobName, 0, -1);
  }

  @Override
  protected InputStream openRange(String blobName, long offset, long length) throws IOException {
    return open(blobName, offset, length);
  }

  /** A stream over the whole blob ({@code length} -1) or a range of it; fetches the first bytes before returning. */
  private InputStream open(String blobName, long offset, long length) throws IOException {
    ReadChannel channel;
    try {
      channel = storage.reader(id(blobName));
      if (length >= 0) {
        if (offset > 0) {
          channel.seek(offset);
        }
        channel.limit(offset + length);
        // A ranged read needs no buffer larger than the range.
        channel.setChunkSize((int) Math.min(length, 2 << 20));
      }
    } catch (IOException | RuntimeException e) {
      throw errors.translate(e, blobName, "open blob for reading", true);
    }
    GcsInputStream in = new GcsInputStream(channel, blobName, offset, length);
    try {
      in.fetchFirst();
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    return in;
  }

  /**
   * A stream over a blob or a range of it, reading one GCS response through a {@link ReadChannel}. A ranged stream
   * is wrapped by the skeleton, which asks for no byte past the range and reports a response that ends early; what
   * this stream adds is telling a range past the end of the blob apart (see {@link #rangeEnded}).
   *
   * <p>One thread reads; {@link #close()} may come from any thread, at any time. The SDK's channel takes the same
   * lock in {@code close()} as in {@code read()}, so closing it while a read is blocked would wait for that read
   * (up to {@code read_timeout}). Instead, {@code close()} aborts the HTTP request through the stream's
   * {@link GcsHttp.Exchange} (the connection is closed, the rest of the body is not drained), which makes the
   * blocked read fail at once, and leaves closing the channel to the reading thread as it leaves {@code read()}.
   * Aborting a response that was read to its end does nothing: its connection has gone back to the pool. (On an
   * application's own {@link Storage}, {@code GcsHttp} is not under the channel: the abort reaches no request, and a
   * blocked read ends only as the client's transport lets it.)
   */
  private final class GcsInputStream extends InputStream {
    private final ReadChannel channel;
    private final GcsHttp.Exchange exchange = new GcsHttp.Exchange();
    private final String blobName;
    private final long offset;
    /** Bytes asked for, or -1 for a whole blob. */
    private final long length;
    // Used by the reading thread only:
    private ByteBuffer head;
    private boolean eof;
    // Shared with a closing thread:
    private volatile boolean closed; // written under the lock
    private boolean reading; // guarded by this
    private boolean channelClosed; // guarded by this

    GcsInputStream(ReadChannel channel, String blobName, long offset, long length) {
      this.channel = channel;
      this.blobName = blobName;
      this.offset = offset;
      this.length = length;
    }

    /** Reads the first bytes now, so that a missing blob or an impossible range fails in read(). */
    void fetchFirst() throws IOException {
      int size = (int) (length < 0 ? FIRST_READ : Math.min(FIRST_READ, length));
      ByteBuffer buffer = ByteBuffer.allocate(size);
      int n = channelRead(buffer);
      buffer.flip();
      head = buffer;
      eof = n < 0;
    }

    private int channelRead(ByteBuffer buffer) throws IOException {
      synchronized (this) {
        if (closed) {
          throw closedStream(null);
        }
        reading = true;
      }
      int n = 0;
      Exception failure = null;
      try (GcsHttp.Scope scope = exchange.enter()) {
        do {
          n = channel.read(buffer);
        } while (n == 0 && buffer.hasRemaining());
      } catch (IOException | RuntimeException e) {
        failure = e;
      } finally {
        leaveRead();
      }
      if (closed && (failure != null || n < 0)) {
        // Closed by another thread while this read was waiting: the failure (or end) is the abort's doing.
        throw closedStream(failure);
      }
      if (failure != null) {
        if (length >= 0 && GcsErrors.classify(failure) == GcsErrors.Kind.RANGE_NOT_SATISFIABLE) {
          rangeEnded(failure);
          return -1;
        }
        throw errors.translate(failure, blobName, "read " + rangeText(), true);
      }
      if (n < 0 && length >= 0) {
        rangeEnded(null);
      }
      return n;
    }

    /**
     * A ranged response ended while bytes of the range were still owed (the skeleton asks for none past the
     * range). GCS answers a range that runs past the end of the blob with the part the blob holds, or 416 when it
     * holds none of it: the blob's length tells whether that is what happened, which is no transient failure.
     * Otherwise the response was cut short (or the blob replaced meanwhile), which the skeleton reports as a
     * retryable failure when this stream ends.
     */
    private void rangeEnded(Throwable cause) throws IOException {
      long size = blobLength(blobName);
      if (offset + length > size) {
        throw pastEnd(blobName, offset, length, size, cause);
      }
    }

    /** The reading thread leaves the channel; if the stream was closed meanwhile, it closes the channel. */
    private void leaveRead() {
      boolean closeChannel;
      synchronized (this) {
        reading = false;
        closeChannel = closed && !channelClosed;
        channelClosed |= closeChannel;
      }
      if (closeChannel) {
        closeChannel();
      }
    }

    private BlobStoreException closedStream(Throwable cause) {
      return new BlobStoreException(description, blobName,
          "the stream over " + rangeText() + " was closed"
              + (cause == null ? "" : " while a read was waiting for data; its request was aborted"),
          cause);
    }

    private String rangeText() {
      return length < 0 ? "the blob" : BlobStoreException.range(offset, length);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n;
      do {
        n = read(one, 0, 1);
      } while (n == 0);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (closed) {
        throw closedStream(null);
      }
      if (len == 0) {
        return 0;
      }
      if (head != null && head.hasRemaining()) {
        int n = Math.min(len, head.remaining());
        head.get(b, off, n);
        return n;
      }
      if (eof) {
        return -1;
      }
      int n = channelRead(ByteBuffer.wrap(b, off, len));
      eof = n < 0;
      return n;
    }

    @Override
    public int available() {
      ByteBuffer h = head;
      return closed || h == null ? 0 : h.remaining();
    }

    /**
     * Closes the stream; safe from any thread, never blocks on a read in progress. Aborts the request first (a
     * response not read to its end has its connection closed, not drained); a read blocked on it fails at once
     * with a {@link BlobStoreException} saying the stream was closed.
     */
    @Override
    public void close() {
      boolean closeChannel;
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        closeChannel = !reading;
        channelClosed |= closeChannel;
      }
      exchange.abort();
      if (closeChannel) {
        closeChannel(); // no read holds the channel's lock: returns at once
      }
    }

    private void closeChannel() {
      try {
        channel.close();
      } catch (RuntimeException e) {
        // the response was aborted; nothing is left to release
      }
    }
  }

  // ---------------------------------------------------------------------------------------------- writes

  @Override
  protected void putBlob(String blobName, InputStream data, long length) throws IOException {
    BlobId id = id(blobName);
    if (length <= settings.singleUploadThreshold) {
      byte[] bytes = readSource(blobName, data, (int) length);
      // The client sends the blob's CRC32C with it, and the server checks it. Index files do not compress:
      // no gzip on the wire.
      try {
        storage.create(BlobInfo.newBuilder(id).build(), bytes, 0, bytes.length,
            Storage.BlobTargetOption.disableGzipContent());
      } catch (RuntimeException e) {
        throw errors.translate(e, blobName, "write blob", false);
      }
    } else {
      writeResumable(blobName, id, data, length);
    }
  }

  private void writeResumable(String blobName, BlobId id, InputStream data, long length) throws IOException {
    WriteChannel channel;
    try {
      channel = storage.writer(BlobInfo.newBuilder(id).build());
      channel.setChunkSize(settings.partSize);
    } catch (RuntimeException e) {
      throw errors.translate(e, blobName, "start a resumable upload", false);
    }
    byte[] buffer = new byte[Math.min(settings.partSize, 1 << 20)];
    long remaining = length;
    while (remaining > 0) {
      int n;
      try {
        n = data.read(buffer, 0, (int) Math.min(buffer.length, remaining));
        if (n < 0) {
          throw new EOFException(
              "the data ended after " + (length - remaining) + " of the " + length + " bytes announced");
        }
      } catch (IOException e) {
        // The upload is left incomplete on purpose: closing the channel would finalize a partial object.
        throw new BlobStoreException(
            description, blobName, "write failed, the resumable upload was abandoned and no blob was created: " + e, e);
      }
      ByteBuffer bb = ByteBuffer.wrap(buffer, 0, n);
      try {
        while (bb.hasRemaining()) {
          channel.write(bb);
        }
      } catch (IOException | RuntimeException e) {
        throw errors.translate(e, blobName, "upload blob", false);
      }
      remaining -= n;
    }
    try {
      channel.close(); // sends the last part and finalizes: only now does the object appear
    } catch (IOException | RuntimeException e) {
      throw errors.translate(e, blobName, "finish the resumable upload of blob", false);
    }
  }

  // ---------------------------------------------------------------------------------------------- metadata

  @Override
  protected List<BlobMetadata> listBlobs(String listPrefix) throws IOException {
    String full = prefix + listPrefix;
    List<BlobMetadata> result = new ArrayList<>();
    try {
      List<Storage.BlobListOption> options = new ArrayList<>();
      options.add(Storage.BlobListOption.pageSize(settings.listPageSize));
      options.add(Storage.BlobListOption.fields(Storage.BlobField.NAME, Storage.BlobField.SIZE));
      if (!full.isEmpty()) {
        options.add(Storage.BlobListOption.prefix(full));
      }
      Page<Blob> page = storage.list(bucket, options.toArray(new Storage.BlobListOption[0]));
      while (page != null) {
        for (Blob blob : page.getValues()) {
          String name = blob.getName();
          if (!name.startsWith(full) || name.endsWith("/")) {
            continue; // a "folder" placeholder made by a console is no blob
          }
          Long size = blob.getSize();
          result.add(new BlobMetadata(name.substring(prefix.length()), size == null ? 0 : size));
        }
        page = page.hasNextPage() ? page.getNextPage() : null;
      }
    } catch (RuntimeException e) {
      throw errors.translate(e, null, "list blobs with prefix '" + listPrefix + "'", false);
    }
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  @Override
  protected long blobLength(String blobName) throws IOException {
    Blob blob;
    try {
      blob = storage.get(id(blobName), Storage.BlobGetOption.fields(Storage.BlobField.SIZE));
    } catch (RuntimeException e) {
      throw errors.translate(e, blobName, "get the length of blob", true);
    }
    if (blob == null) {
      throw errors.notFound(blobName, null);
    }
    Long size = blob.getSize();
    return size == null ? 0 : size;
  }

  @Override
  protected void deleteBlob(String blobName) throws IOException {
    boolean deleted;
    try {
      deleted = storage.delete(id(blobName));
    } catch (RuntimeException e) {
      throw errors.translate(e, blobName, "delete blob", false);
    }
    // No such blob is not an error, but no such bucket is: GCS answers 404 to both.
    if (!deleted && !bucketExists()) {
      throw errors.missingBucket(blobName, null);
    }
  }

  /** Deletes in batch requests of up to 100 blobs each. */
  @Override
  protected void deleteBlobs(Collection<String> blobNames) throws IOException {
    Map<BlobId, String> ids = new LinkedHashMap<>();
    for (String name : blobNames) {
      ids.put(id(name), name);
    }
    List<BlobId> all = new ArrayList<>(ids.keySet());
    for (int from = 0; from < all.size(); from += BATCH_SIZE) {
      List<BlobId> batch = all.subList(from, Math.min(all.size(), from + BATCH_SIZE));
      boolean allDeleted;
      try {
        if (batch.size() == 1) {
          allDeleted = storage.delete(batch.get(0));
        } else {
          allDeleted = !storage.delete(batch).contains(Boolean.FALSE);
        }
        if (!allDeleted && !bucketExists()) {
          throw errors.missingBucket(null, null);
        }
      } catch (RuntimeException e) {
        String first = ids.get(batch.get(0));
        throw errors.translate(e, batch.size() == 1 ? first : null,
            "delete " + batch.size() + " blobs (from '" + first + "')", false);
      }
    }
  }

  /** Closes the client the store built; an application's {@link Storage} is left open, for its owner to close. */
  @Override
  protected void closeStore() throws IOException {
    if (http == null) {
      return;
    }
    try {
      storage.close();
    } catch (Exception e) {
      throw new BlobStoreException(description, null, "closing the GCS client failed: " + GcsErrors.detail(e), e);
    } finally {
      http.close();
    }
  }

  @Override
  public String toString() {
    return "GcsBlobStore(" + description + ")";
  }

  /** Whether the bucket exists; true when that cannot be told (e.g. no permission to see buckets). */
  private boolean bucketExists() {
    if (bucketSeen) {
      return true;
    }
    try {
      Bucket b = storage.get(bucket, Storage.BucketGetOption.fields(Storage.BucketField.NAME));
      if (b == null) {
        return false;
      }
      bucketSeen = true;
      return true;
    } catch (RuntimeException e) {
      return true;
    }
  }

  // ---------------------------------------------------------------------------------------------- builder

  /**
   * Builds a {@link GcsBlobStore} from a bucket, an optional prefix and settings named exactly as the URI's
   * query parameters (see {@link GcsSettings}). Each typed method is shorthand for {@link #setting(String,
   * String)} with that setting's name; a setting of the {@link StorePolicy} is refused at once, and {@link #build()}
   * rejects any setting it does not know, by name.
   *
   * <pre>{@code
   * BlobStore store = GcsBlobStore.builder().bucket("my-bucket").prefix("snapshots")
   *     .projectId("my-project").credentialsFile(Path.of("/etc/permafrost/sa.json")).build();
   * }</pre>
   *
   * <p>The store builds its own client, unless it is given the application's: {@link #storage(Storage)}. It can
   * also be given {@link #credentials(Credentials) credentials} for the client it builds.
   */
  public static final class Builder extends BlobStoreBuilder<Builder> {
    private String bucket;
    private String prefix = "";
    private Storage storage;
    private Credentials credentials;

    private Builder() {
      super(SCHEME);
    }

    /** The bucket (required). */
    public Builder bucket(String bucket) {
      this.bucket = bucket;
      return this;
    }

    /** The prefix below which blobs are kept, e.g. {@code snapshots/prod}; default none. */
    public Builder prefix(String prefix) {
      this.prefix = prefix == null ? "" : prefix;
      return this;
    }

    /** {@value GcsSettings#PROJECT_ID}. */
    public Builder projectId(String projectId) {
      return setting(GcsSettings.PROJECT_ID, projectId);
    }

    /** {@value GcsSettings#ENDPOINT}: e.g. {@code http://127.0.0.1:4443} for an emulator. */
    public Builder endpoint(String endpoint) {
      return setting(GcsSettings.ENDPOINT, endpoint);
    }

    /** {@value GcsSettings#CREDENTIALS_FILE}: a service-account JSON key file. */
    public Builder credentialsFile(Path file) {
      return setting(GcsSettings.CREDENTIALS_FILE, file == null ? null : file.toString());
    }

    /** {@value GcsSettings#CREDENTIALS}{@code =none}: send no credentials (emulators, public buckets). */
    public Builder noCredentials() {
      return setting(GcsSettings.CREDENTIALS, "none");
    }

    /** {@value GcsSettings#CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration timeout) {
      return setting(GcsSettings.CONNECT_TIMEOUT, timeout == null ? null : timeout.toString());
    }

    /** {@value GcsSettings#READ_TIMEOUT}. */
    public Builder readTimeout(Duration timeout) {
      return setting(GcsSettings.READ_TIMEOUT, timeout == null ? null : timeout.toString());
    }

    /** {@value GcsSettings#SINGLE_UPLOAD_THRESHOLD}, in bytes. */
    public Builder singleUploadThreshold(long bytes) {
      return setting(GcsSettings.SINGLE_UPLOAD_THRESHOLD, Long.toString(bytes));
    }

    /** {@value GcsSettings#PART_SIZE}, in bytes. */
    public Builder partSize(long bytes) {
      return setting(GcsSettings.PART_SIZE, Long.toString(bytes));
    }

    /** {@value GcsSettings#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int size) {
      return setting(GcsSettings.LIST_PAGE_SIZE, Integer.toString(size));
    }

    /**
     * The application's own client, for the store to use instead of building one. The store never closes it: its
     * owner does, after closing the store. Settings that configure a client ({@value GcsSettings#ENDPOINT},
     * {@value GcsSettings#CREDENTIALS}, {@value GcsSettings#CREDENTIALS_FILE}, {@value GcsSettings#PROJECT_ID},
     * {@value GcsSettings#CONNECT_TIMEOUT}, {@value GcsSettings#READ_TIMEOUT}) and {@link #credentials} are then
     * refused: configure the {@code Storage} instead.
     *
     * <p>Two things are then the application's to get right:
     *
     * <ul>
     *   <li><b>It should not retry.</b> The store policy retries, so a client that retries as well multiplies the
     *       attempts (the SDK's default is up to 6 per request). Build it with {@code
     *       setRetrySettings(StorageOptions.getDefaultRetrySettings().toBuilder().setMaxAttempts(1).build())} and a
     *       {@code StorageRetryStrategy} whose handlers never retry (a read channel reopens a broken response by
     *       itself whenever the strategy calls the failure retryable). The store logs a warning when the client's
     *       retry settings allow more than one attempt.
     *   <li><b>Reads are aborted only as far as its transport allows.</b> The store's own HTTP engine, which lets
     *       a read stream be closed from another thread while a read is blocked on it, is not under this client:
     *       {@code close()} on a read stream still returns at once, but a read blocked in the client's transport
     *       ends only when data comes or the transport's read time-out passes, and the store policy's deadlines
     *       can end it no sooner.
     * </ul>
     *
     * @param storage a client for the JSON API (e.g. {@code StorageOptions.http()...build().getService()})
     */
    public Builder storage(Storage storage) {
      this.storage = Objects.requireNonNull(storage, "storage");
      return this;
    }

    /**
     * Credentials for the client the store builds, instead of those the settings name (a key file, the
     * application-default ones, or none); {@value GcsSettings#CREDENTIALS} and {@value GcsSettings#CREDENTIALS_FILE}
     * are then refused. Token requests are the credentials' own: for a single attempt each, as the store's
     * {@code credentials_file} does it, use {@code GoogleCredentials.createWithCustomRetryStrategy(false)}.
     *
     * @param credentials e.g. {@code GoogleCredentials.getApplicationDefault()} or impersonated credentials
     */
    public Builder credentials(Credentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /**
     * Opens the store, without a {@link StorePolicy}: each call is one attempt, with no deadline. Resolves the
     * credentials now, so that a bad key file fails here; makes no request. Give the store to
     * {@code SnapshotRepository.open(store)}, which applies the default policy, or wrap it with
     * {@code StorePolicy.builder()...build().apply(store)}.
     *
     * @throws IllegalArgumentException for a missing or invalid bucket, prefix or setting, an unknown setting, or a
     *     setting that configures a client next to {@link #storage(Storage)}
     * @throws BlobStoreException if the credentials cannot be loaded
     */
    public GcsBlobStore build() throws IOException {
      return GcsBlobStore.open(bucket, prefix, storeSettings(), storage, credentials);
    }
  }
}
