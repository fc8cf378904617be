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
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.blob.StoreSettings;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * A {@link BlobStore} in a Google Cloud Storage bucket, below an optional prefix: {@code gs://bucket/prefix}.
 * Talks to the JSON API through the google-cloud-storage client, to GCS itself or to any endpoint that speaks
 * it (fake-gcs-server, a private endpoint).
 *
 * <p>Open it by URI with {@link dev.permafrost.blob.BlobStores#open(java.net.URI)}, e.g.
 * {@code gs://my-bucket/snapshots?project_id=my-project}, or with {@link #builder()}; the settings and their
 * names are the same both ways (see {@link GcsSettings}).
 *
 * <ul>
 *   <li>Writes of at most {@code resumable_threshold} bytes are sent in one request, with a CRC32C the server
 *       checks; larger ones use a resumable upload in chunks of {@code resumable_chunk_size}. Either way GCS
 *       creates the object only when the upload completes, so readers never see a partial blob; if the source
 *       stream fails or comes up short, the upload is never completed and no object appears (an abandoned
 *       resumable session expires on the server).
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
 * <p>Thread-safe. Error messages name the backend, the bucket, the prefix, the endpoint and the blob; they
 * never contain credentials.
 */
public final class GcsBlobStore implements BlobStore {
  /** The URI scheme: {@code gs}. */
  public static final String SCHEME = "gs";

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");
  private static final int BATCH_SIZE = 100;
  /** How much a ranged read fetches before returning, so that "not found" and "past the end" surface early. */
  private static final int FIRST_READ = 8192;

  private final Storage storage;
  private final GcsHttp http;
  private final String bucket;
  private final String prefix;
  private final GcsSettings settings;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean bucketSeen;

  private GcsBlobStore(
      Storage storage, GcsHttp http, String bucket, String prefix, GcsSettings settings, String description) {
    this.storage = storage;
    this.http = http;
    this.bucket = bucket;
    this.prefix = prefix;
    this.settings = settings;
    this.description = description;
  }

  /** A builder for a store; {@link Builder#bucket(String)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Opens a store on {@code bucket} below {@code prefix} with the given settings, rejecting unknown ones. */
  static GcsBlobStore open(String bucket, String prefix, StoreSettings storeSettings) throws IOException {
    String normalizedPrefix = normalizePrefix(prefix);
    validateBucket(bucket);
    GcsSettings settings = GcsSettings.parse(storeSettings);
    String description =
        SCHEME + "://" + bucket + (normalizedPrefix.isEmpty() ? "" : "/" + normalizedPrefix.substring(0, normalizedPrefix.length() - 1))
            + " (endpoint " + settings.endpoint + ")";
    Credentials credentials = credentials(settings, description);
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
    return new GcsBlobStore(storage, http, bucket, normalizedPrefix, settings, description);
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
          return ServiceAccountCredentials.fromStream(new java.io.ByteArrayInputStream(json))
              .createWithCustomRetryStrategy(false);
        } catch (IOException | RuntimeException e) {
          // No cause and no parser message: either could quote the file's contents, which hold a private key.
          throw new BlobStoreException(
              description, null,
              "GCS credentials_file '" + file + "' is not a usable service-account JSON key file ("
                  + e.getClass().getSimpleName() + "); download a JSON key for the service account, or use"
                  + " application-default credentials by leaving credentials_file out");
        } finally {
          java.util.Arrays.fill(json, (byte) 0);
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

  static String normalizePrefix(String prefix) {
    return BlobNames.normalizePrefix(prefix, "gs blob store prefix");
  }

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

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("blob store " + description + " is closed");
    }
  }

  private BlobId id(String blobName) {
    return BlobId.of(bucket, prefix + BlobNames.validate(blobName));
  }

  // ---------------------------------------------------------------------------------------------- reads

  @Override
  public InputStream read(String blobName) throws IOException {
    ensureOpen();
    BlobId id = id(blobName);
    return open(blobName, id, 0, -1);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    ensureOpen();
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "negative offset or length reading " + BlobStoreException.range(offset, length) + " of blob " + blobName);
    }
    BlobId id = id(blobName);
    if (length == 0) {
      // Nothing to fetch, but the blob must exist and the (empty) range must lie within it.
      long size = length(blobName);
      if (offset > size) {
        throw pastEnd(blobName, offset, length, size);
      }
      return InputStream.nullInputStream();
    }
    return open(blobName, id, offset, length);
  }

  private InputStream open(String blobName, BlobId id, long offset, long length) throws IOException {
    ReadChannel channel;
    try {
      channel = storage.reader(id);
      if (length >= 0) {
        if (offset > 0) {
          channel.seek(offset);
        }
        channel.limit(offset + length);
        // A ranged read needs no buffer larger than the range.
        channel.setChunkSize((int) Math.min(length, 2 << 20));
      }
    } catch (IOException | RuntimeException e) {
      throw translate(e, blobName, "open blob for reading", true);
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

  private BlobStoreException pastEnd(String blobName, long offset, long length, long size) {
    return new BlobStoreException(
        description,
        blobName,
        "range " + BlobStoreException.range(offset, length) + " is past the end of the blob (length " + size + ")");
  }

  /**
   * Called when a ranged read ends early: finds the blob's length to say why. A range past the end is no
   * transient failure; a response that ends before a range the blob holds was cut short, and may pass if asked
   * for again.
   */
  private BlobStoreException shortRange(String blobName, long offset, long length, long reached) throws IOException {
    long size = length(blobName);
    if (offset + length > size) {
      return pastEnd(blobName, offset, length, size);
    }
    return new BlobStoreException(
        description,
        blobName,
        "GCS response for " + BlobStoreException.range(offset, length) + " ended at offset " + reached
            + " although the blob is " + size + " bytes long; the response was cut short, or the blob was replaced"
            + " while being read",
        null,
        true);
  }

  /**
   * A stream over a blob or a range of it, reading one GCS response through a {@link ReadChannel}.
   *
   * <p>One thread reads; {@link #close()} may come from any thread, at any time. The SDK's channel takes the same
   * lock in {@code close()} as in {@code read()}, so closing it while a read is blocked would wait for that read
   * (up to {@code read_timeout}). Instead, {@code close()} aborts the HTTP request through the stream's
   * {@link GcsHttp.Exchange} (the connection is closed, the rest of the body is not drained), which makes the
   * blocked read fail at once, and leaves closing the channel to the reading thread as it leaves {@code read()}.
   * Aborting a response that was read to its end does nothing: its connection has gone back to the pool.
   */
  private final class GcsInputStream extends InputStream {
    private final ReadChannel channel;
    private final GcsHttp.Exchange exchange = new GcsHttp.Exchange();
    private final String blobName;
    private final long offset;
    /** Bytes expected, or -1 for a whole blob of unknown length. */
    private final long length;
    // Used by the reading thread only:
    private long delivered;
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
      if (n < 0) {
        endOfData();
      }
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
        if (GcsErrors.classify(failure) == GcsErrors.Kind.RANGE_NOT_SATISFIABLE && length >= 0) {
          throw shortRange(blobName, offset, length, offset + delivered);
        }
        throw translate(failure, blobName, "read " + rangeText(), true);
      }
      return n;
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

    /** The response ended: fine for a whole blob, or for a range read to its end; an error otherwise. */
    private void endOfData() throws IOException {
      eof = true;
      long buffered = head == null ? 0 : head.remaining();
      if (length >= 0 && delivered + buffered < length) {
        throw shortRange(blobName, offset, length, offset + delivered + buffered);
      }
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
        delivered += n;
        return n;
      }
      if (eof || (length >= 0 && delivered >= length)) {
        return -1;
      }
      int want = length < 0 ? len : (int) Math.min(len, length - delivered);
      int n = channelRead(ByteBuffer.wrap(b, off, want));
      if (n < 0) {
        endOfData();
        return -1;
      }
      delivered += n;
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
  public void write(String blobName, InputStream data, long length) throws IOException {
    ensureOpen();
    Objects.requireNonNull(data, "data");
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " writing blob " + blobName);
    }
    BlobId id = id(blobName);
    if (length <= settings.resumableThreshold) {
      writeInOneRequest(blobName, id, data, (int) length);
    } else {
      writeResumable(blobName, id, data, length);
    }
  }

  private void writeInOneRequest(String blobName, BlobId id, InputStream data, int length) throws IOException {
    byte[] bytes = new byte[length];
    try {
      int read = data.readNBytes(bytes, 0, length);
      if (read < length) {
        throw new EOFException("the data ended after " + read + " of the " + length + " bytes announced");
      }
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "write failed, nothing was written: " + e, e);
    }
    // The client sends the blob's CRC32C with it, and the server checks it. Index files do not compress:
    // no gzip on the wire.
    BlobInfo info = BlobInfo.newBuilder(id).build();
    try {
      storage.create(info, bytes, 0, length, Storage.BlobTargetOption.disableGzipContent());
    } catch (RuntimeException e) {
      throw translate(e, blobName, "write blob", false);
    }
  }

  private void writeResumable(String blobName, BlobId id, InputStream data, long length) throws IOException {
    WriteChannel channel;
    try {
      channel = storage.writer(BlobInfo.newBuilder(id).build());
      channel.setChunkSize(settings.resumableChunkSize);
    } catch (RuntimeException e) {
      throw translate(e, blobName, "start a resumable upload", false);
    }
    byte[] buffer = new byte[Math.min(settings.resumableChunkSize, 1 << 20)];
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
        throw translate(e, blobName, "upload blob", false);
      }
      remaining -= n;
    }
    try {
      channel.close(); // sends the last chunk and finalizes: only now does the object appear
    } catch (IOException | RuntimeException e) {
      throw translate(e, blobName, "finish the resumable upload of blob", false);
    }
  }

  // ---------------------------------------------------------------------------------------------- metadata

  @Override
  public List<BlobMetadata> list(String listPrefix) throws IOException {
    ensureOpen();
    BlobNames.validatePrefix(listPrefix);
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
      throw translate(e, null, "list blobs with prefix '" + listPrefix + "'", false);
    }
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  @Override
  public long length(String blobName) throws IOException {
    ensureOpen();
    BlobId id = id(blobName);
    Blob blob;
    try {
      blob = storage.get(id, Storage.BlobGetOption.fields(Storage.BlobField.SIZE));
    } catch (RuntimeException e) {
      throw translate(e, blobName, "get the length of blob", true);
    }
    if (blob == null) {
      throw notFound(blobName, null);
    }
    Long size = blob.getSize();
    return size == null ? 0 : size;
  }

  @Override
  public void delete(String blobName) throws IOException {
    ensureOpen();
    BlobId id = id(blobName);
    boolean deleted;
    try {
      deleted = storage.delete(id);
    } catch (RuntimeException e) {
      throw translate(e, blobName, "delete blob", false);
    }
    // No such blob is not an error, but no such bucket is: GCS answers 404 to both.
    if (!deleted && !bucketExists()) {
      throw missingBucket(blobName, null);
    }
  }

  /** Deletes in batch requests of up to 100 blobs each. */
  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    ensureOpen();
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
          throw missingBucket(null, null);
        }
      } catch (RuntimeException e) {
        String first = ids.get(batch.get(0));
        throw translate(e, batch.size() == 1 ? first : null,
            "delete " + batch.size() + " blobs (from '" + first + "')", false);
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      try {
        storage.close();
      } catch (Exception e) {
        throw new BlobStoreException(description, null, "closing the GCS client failed: " + GcsErrors.detail(e), e);
      } finally {
        http.close();
      }
    }
  }

  @Override
  public String toString() {
    return "GcsBlobStore(" + description + ")";
  }

  // ---------------------------------------------------------------------------------------------- errors

  private BlobNotFoundException notFound(String blobName, Throwable cause) throws BlobStoreException {
    if (!bucketExists()) {
      throw missingBucket(blobName, cause);
    }
    return cause == null ? new BlobNotFoundException(description, blobName) : new BlobNotFoundException(description, blobName, cause);
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

  private BlobStoreException missingBucket(String blobName, Throwable cause) {
    return new BlobStoreException(
        description, blobName,
        "GCS bucket '" + bucket + "' does not exist at " + settings.endpoint
            + "; check the bucket name in the store URI, and that the project and endpoint are the intended ones",
        cause);
  }

  /**
   * Maps a failure of the Google client to a {@link BlobStoreException} that says what is wrong and what to
   * check, and whether the request may succeed if sent again ({@link GcsErrors#retryable}).
   *
   * @param blobNotFoundMeansBlob whether a 404 may mean "no such blob" (reads, lengths) rather than "no such
   *     bucket" (writes, lists)
   */
  private BlobStoreException translate(Throwable e, String blobName, String action, boolean blobNotFoundMeansBlob)
      throws BlobStoreException {
    if (e instanceof BlobStoreException bse) {
      return bse;
    }
    if (GcsErrors.interrupted(e)) {
      Thread.currentThread().interrupt();
      InterruptedIOException ie = new InterruptedIOException("interrupted while trying to " + action + " in " + description);
      ie.initCause(e);
      return new BlobStoreException(description, blobName, "interrupted while trying to " + action, ie);
    }
    String endpoint = settings.endpoint;
    String what = "GCS could not " + action;
    GcsErrors.Kind kind = GcsErrors.classify(e);
    boolean retryable = GcsErrors.retryable(kind, e);
    String message = switch (kind) {
      case NOT_FOUND -> {
        if (blobNotFoundMeansBlob && blobName != null) {
          throw notFound(blobName, e);
        }
        if (!bucketExists()) {
          throw missingBucket(blobName, e);
        }
        yield what + ": not found (" + GcsErrors.detail(e) + ")";
      }
      case UNAUTHENTICATED -> what + ": the endpoint " + endpoint + " rejected the credentials (HTTP 401"
          + " Unauthorized); check " + credentialsHint();
      case PERMISSION_DENIED -> what + ": permission denied (HTTP 403 Forbidden) on bucket '" + bucket + "'; the"
          + " credentials are valid but lack a permission this store needs (storage.objects.get/list/create/delete,"
          + " e.g. the role roles/storage.objectAdmin), or the bucket belongs to another project or is"
          + " requester-pays (" + GcsErrors.detail(e) + ")";
      case RATE_LIMITED -> what + ": GCS is throttling requests (" + GcsErrors.detail(e) + "); lower the request"
          + " rate (the store policy's max_concurrent_requests and max_bytes_per_sec) or spread the load";
      case SERVER_ERROR -> what + ": the GCS endpoint " + endpoint + " answered with a server error ("
          + GcsErrors.detail(e) + "); such failures are usually transient";
      case CREDENTIALS_UNUSABLE -> what + ": could not obtain an access token with the configured credentials;"
          + " check " + credentialsHint() + " (" + e.getClass().getSimpleName() + ")";
      case CONNECTION_REFUSED -> what + ": cannot connect to the GCS endpoint " + endpoint + " (connection"
          + " refused); check the endpoint setting, that the server is running and that it is reachable from here";
      case CONNECTION_LOST -> what + ": the connection to the GCS endpoint " + endpoint + " was lost before the"
          + " response was complete (" + GcsErrors.detail(e) + ")";
      case UNKNOWN_HOST -> what + ": the host of the GCS endpoint " + endpoint + " cannot be resolved; check the"
          + " endpoint setting and DNS";
      case TIMEOUT -> what + ": timed out talking to the GCS endpoint " + endpoint + " (connect_timeout "
          + human(settings.connectTimeout) + ", read_timeout " + human(settings.readTimeout) + "); check the"
          + " network, or raise the timeouts";
      case TLS -> what + ": TLS handshake with the GCS endpoint " + endpoint + " failed; check the endpoint's"
          + " scheme (http or https) and its certificate (" + GcsErrors.detail(e) + ")";
      case RANGE_NOT_SATISFIABLE, OTHER -> what + ": " + GcsErrors.detail(e);
    };
    return new BlobStoreException(description, blobName, message, e, retryable);
  }

  private String credentialsHint() {
    return switch (settings.credentialsMode) {
      case FILE -> "the service-account key in credentials_file '" + settings.credentialsFile
          + "' (is the key valid and not deleted, is the account enabled?)";
      case DEFAULT -> "the application-default credentials (GOOGLE_APPLICATION_CREDENTIALS, 'gcloud auth"
          + " application-default login', or the metadata server's service account), or set credentials_file";
      case NONE -> "the credentials: credentials=none sends no credentials, which only emulators and public"
          + " buckets accept; set credentials_file or use application-default credentials";
    };
  }

  private static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  // ---------------------------------------------------------------------------------------------- builder

  /**
   * Builds a {@link GcsBlobStore} from a bucket, an optional prefix and settings named exactly as the URI's
   * query parameters (see {@link GcsSettings}). Each typed method is shorthand for {@link #setting(String,
   * String)} with that setting's name; {@link #build()} rejects any setting it does not know, by name.
   *
   * <pre>{@code
   * BlobStore store = GcsBlobStore.builder().bucket("my-bucket").prefix("snapshots")
   *     .projectId("my-project").credentialsFile(Path.of("/etc/permafrost/sa.json")).build();
   * }</pre>
   */
  public static final class Builder {
    private static final Set<String> POLICY_SETTINGS = Set.of(StorePolicy.MAX_RETRIES, StorePolicy.RETRY_DELAY,
        StorePolicy.RETRY_MAX_DELAY, StorePolicy.RETRY_TIME_LIMIT, StorePolicy.REQUEST_TIMEOUT,
        StorePolicy.MIN_READ_THROUGHPUT, StorePolicy.HEDGE_AFTER, StorePolicy.MAX_BYTES_PER_SEC,
        StorePolicy.MAX_CONCURRENT_REQUESTS);

    private String bucket;
    private String prefix = "";
    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder() {}

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

    /** Sets a setting by its name, as in a URI query parameter; null removes it. */
    public Builder setting(String name, String value) {
      Objects.requireNonNull(name, "name");
      if (value == null) {
        settings.remove(name);
      } else {
        settings.put(name, value);
      }
      return this;
    }

    /** Sets every setting of the map, by name. */
    public Builder settings(Map<String, String> values) {
      values.forEach(this::setting);
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

    /** {@value GcsSettings#RESUMABLE_THRESHOLD}, in bytes. */
    public Builder resumableThreshold(long bytes) {
      return setting(GcsSettings.RESUMABLE_THRESHOLD, Long.toString(bytes));
    }

    /** {@value GcsSettings#RESUMABLE_CHUNK_SIZE}, in bytes. */
    public Builder resumableChunkSize(long bytes) {
      return setting(GcsSettings.RESUMABLE_CHUNK_SIZE, Long.toString(bytes));
    }

    /** {@value GcsSettings#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int size) {
      return setting(GcsSettings.LIST_PAGE_SIZE, Integer.toString(size));
    }

    /**
     * Opens the store, without a {@link StorePolicy}: each call is one attempt, with no deadline. Resolves the
     * credentials now, so that a bad key file fails here; makes no request. Give the store to
     * {@code SnapshotRepository.open(store)}, which applies the default policy, or wrap it with
     * {@code StorePolicy.builder()...build().apply(store)}.
     *
     * @throws IllegalArgumentException for a missing or invalid bucket, prefix or setting, an unknown setting, or
     *     a setting of the store policy (such as {@code max_retries})
     * @throws BlobStoreException if the credentials cannot be loaded
     */
    public GcsBlobStore build() throws IOException {
      for (String name : settings.keySet()) {
        if (POLICY_SETTINGS.contains(name)) {
          throw new IllegalArgumentException("'" + name + "' is a setting of the store policy, not of the gs blob"
              + " store: wrap the built store with StorePolicy.builder()...build().apply(store), or open it by URI"
              + " with BlobStores.open, which reads the policy settings from the query");
        }
      }
      return GcsBlobStore.open(bucket, prefix, new StoreSettings(SCHEME, settings));
    }
  }
}
