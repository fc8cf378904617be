/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.StoreSettings;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A {@link BlobStore} in an Amazon S3 bucket, or in any S3-compatible store (MinIO, Ceph RGW, Cloudflare R2...)
 * through the {@code endpoint} setting: {@code s3://bucket/prefix?region=eu-west-1}. Each blob is the object
 * {@code prefix/name}.
 *
 * <p>Open it by URI with {@link BlobStores#open(URI)} or programmatically with {@link #builder()}; both take the
 * same settings by the same names (see the {@code blobstore-s3} README), and both reject an unknown setting by
 * name.
 *
 * <ul>
 *   <li>Reads are GETs, ranged reads {@code Range: bytes=a-b} GETs; a range past the end of the blob fails with a
 *       {@link BlobStoreException} naming the range and the blob's length (whether the server answers 416 or a
 *       short {@code Content-Range}).
 *   <li>A blob shorter than {@code multipart_threshold} is read from the source into memory and sent in one PUT
 *       with its length; a longer one is sent as a multipart upload of {@code part_size} parts, each buffered in
 *       memory, so that nothing is sent unless the source delivered it whole. Any failure, including the source
 *       stream failing or ending short, aborts the upload, so readers never see a partial blob.
 *   <li>Listing follows every ListObjectsV2 page; batch deletes use DeleteObjects in batches of at most 1000.
 * </ul>
 *
 * <p>Credentials are the {@code access_key} / {@code secret_key} settings when given, otherwise the AWS SDK's
 * default provider chain (environment, system properties, profile files, container and instance roles). They
 * never appear in {@link #describe()}, {@link #toString()} or any exception message.
 *
 * <p><b>Failures.</b> The SDK client makes exactly one attempt per request: its own retries are off, because
 * retries, deadlines, hedging and rate limits belong to the {@link dev.permafrost.blob.StorePolicy} that
 * {@link BlobStores#open(URI)} puts around this store ({@code SnapshotRepository.open(store)} applies the default
 * policy to a store from {@link #builder()}); two retry layers would multiply the attempts. Every failure is a
 * {@link BlobStoreException} whose {@link BlobStoreException#isRetryable() isRetryable()} tells the policy whether
 * the same request may pass if sent again:
 *
 * <ul>
 *   <li>retryable: HTTP 5xx, 408, 429 and the throttling and time-out codes ({@code SlowDown}, {@code Throttling},
 *       {@code RequestTimeout}...), {@code RequestTimeTooSkewed} (the SDK corrects its clock for the next
 *       request), a host that does not resolve, a connection refused, reset or timed out, socket time-outs, TLS
 *       errors and responses cut short (a stream that ends or breaks before the length it announced);
 *   <li>not retryable: a missing blob ({@link BlobNotFoundException}) or bucket, 401/403 (unknown access key, wrong
 *       secret key, access denied), a bucket in another region, 400, 412, 416 and every other 4xx, a range past the
 *       end of the blob, missing credentials, a failing or short source stream in {@code write}, an interrupted
 *       thread, and a stream closed while it was read.
 * </ul>
 *
 * <p><b>Streams.</b> A stream returned by {@code read} may be closed from any thread, as the policy's deadline
 * timer does while the reading thread is blocked in {@code read()}. {@code close()} is idempotent and thread-safe:
 * unless the whole response body has already been received (then the connection returns to the pool), it aborts
 * the HTTP request, dropping the connection instead of draining the rest of the body. A read blocked in another
 * thread then fails at once, as does any later read, with a non-retryable {@link BlobStoreException} saying that
 * the stream was closed (never with a premature end of stream).
 *
 * <p>The SDK client is synchronous and uses the Apache HttpClient 5 based HTTP client: it pools connections (the
 * concurrent ranged reads of a search share them), has separate connect and socket timeouts, and can abort a
 * response stream that is closed before its end instead of draining it. Instances are thread-safe.
 */
public final class S3BlobStore implements BlobStore {
  /** Setting: the AWS region; default from the SDK's region chain, or {@code us-east-1} with an endpoint. */
  public static final String REGION = "region";
  /** Setting: endpoint URL overriding AWS's, for MinIO and other S3-compatible stores. */
  public static final String ENDPOINT = "endpoint";
  /** Setting: address buckets as {@code endpoint/bucket} instead of {@code bucket.endpoint}. */
  public static final String PATH_STYLE_ACCESS = "path_style_access";
  /** Setting: explicit access key id; needs {@link #SECRET_KEY}. */
  public static final String ACCESS_KEY = "access_key";
  /** Setting: explicit secret access key; needs {@link #ACCESS_KEY}. */
  public static final String SECRET_KEY = "secret_key";
  /** Setting: how long to wait for a TCP connection. */
  public static final String CONNECTION_TIMEOUT = "connection_timeout";
  /** Setting: how long a socket read may block (the socket timeout). */
  public static final String READ_TIMEOUT = "read_timeout";
  /** Setting: the size of the HTTP connection pool. */
  public static final String MAX_CONNECTIONS = "max_connections";
  /** Setting: blobs of at least this size are written with a multipart upload. */
  public static final String MULTIPART_THRESHOLD = "multipart_threshold";
  /** Setting: the part size of multipart uploads. */
  public static final String PART_SIZE = "part_size";
  /** Setting: how many keys one ListObjectsV2 page asks for (1 to 1000). */
  public static final String LIST_PAGE_SIZE = "list_page_size";

  static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(50);
  static final int DEFAULT_MAX_CONNECTIONS = 50;
  static final long DEFAULT_MULTIPART_THRESHOLD = 16L << 20;
  static final long DEFAULT_PART_SIZE = 8L << 20;
  static final int DEFAULT_LIST_PAGE_SIZE = 1000;

  /** S3's smallest part (except the last one). */
  static final long MIN_PART_SIZE = 5L << 20;
  /** Parts and single PUTs are buffered in a byte array, so they stay well below 2 GiB. */
  static final long MAX_BUFFERED = 1L << 30;
  static final int MAX_PARTS = 10_000;
  static final int MAX_DELETE_BATCH = 1000;
  /** Error codes of throttling (whatever the status): worth another attempt after a back-off. */
  static final Set<String> THROTTLING_ERROR_CODES =
      Set.of("SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded", "BandwidthLimitExceeded",
          "TooManyRequestsException", "RequestThrottled", "RequestThrottledException");
  /** Other error codes, beyond 5xx and 408, that a second attempt may pass (S3 can send them with a 200 or 400). */
  static final Set<String> TRANSIENT_ERROR_CODES =
      Set.of("InternalError", "ServiceUnavailable", "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete");

  private static final String CONTENT_TYPE = "application/octet-stream";

  private final S3Client client;
  /** The credentials provider, closed with the store (the SDK does not close one it was given). */
  private final AwsCredentialsProvider credentials;
  private final String bucket;
  private final String prefix;
  private final String endpoint;
  private final String region;
  private final Duration connectionTimeout;
  private final Duration readTimeout;
  private final long multipartThreshold;
  private final long partSize;
  private final int listPageSize;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Set once the bucket is known to exist, so that a 404 on HEAD is only checked against it once. */
  private volatile boolean bucketSeen;

  private S3BlobStore(String bucket, String prefix, StoreSettings settings) {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException("s3 blob store needs a bucket (s3://bucket/prefix)");
    }
    this.bucket = bucket;
    this.prefix = normalizePrefix(prefix);
    String regionSetting = emptyToNull(settings.get(REGION, null));
    String endpointSetting = emptyToNull(settings.get(ENDPOINT, null));
    boolean pathStyle = settings.getBoolean(PATH_STYLE_ACCESS, endpointSetting != null);
    String accessKey = emptyToNull(settings.get(ACCESS_KEY, null));
    String secretKey = emptyToNull(settings.get(SECRET_KEY, null));
    this.connectionTimeout = settings.getDuration(CONNECTION_TIMEOUT, DEFAULT_CONNECTION_TIMEOUT);
    this.readTimeout = settings.getDuration(READ_TIMEOUT, DEFAULT_READ_TIMEOUT);
    int maxConnections = settings.getInt(MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS);
    this.multipartThreshold = settings.getBytes(MULTIPART_THRESHOLD, DEFAULT_MULTIPART_THRESHOLD);
    this.partSize = settings.getBytes(PART_SIZE, DEFAULT_PART_SIZE);
    this.listPageSize = settings.getInt(LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE);
    settings.rejectUnknown();

    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          "s3 blob store settings '" + ACCESS_KEY + "' and '" + SECRET_KEY + "' go together: give both or neither"
              + " (neither uses the AWS default credentials provider chain)");
    }
    requirePositive(CONNECTION_TIMEOUT, connectionTimeout);
    requirePositive(READ_TIMEOUT, readTimeout);
    if (maxConnections < 1) {
      throw new IllegalArgumentException("s3 blob store setting '" + MAX_CONNECTIONS + "' must be at least 1, got " + maxConnections);
    }
    if (partSize < MIN_PART_SIZE || partSize > MAX_BUFFERED) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + PART_SIZE + "' must be between 5mb (S3's smallest part) and 1gb, got "
              + ByteSizes.format(partSize));
    }
    if (multipartThreshold < 1 || multipartThreshold > MAX_BUFFERED) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + MULTIPART_THRESHOLD + "' must be between 1b and 1gb, got "
              + ByteSizes.format(multipartThreshold));
    }
    if (listPageSize < 1 || listPageSize > 1000) {
      throw new IllegalArgumentException(
          "s3 blob store setting '" + LIST_PAGE_SIZE + "' must be between 1 and 1000, got " + listPageSize);
    }
    URI endpointUri = endpointSetting == null ? null : parseEndpoint(endpointSetting);
    this.endpoint = endpointUri == null ? null : BlobStores.redact(endpointUri);
    this.region = regionSetting != null ? regionSetting : defaultRegion(endpointUri != null);
    this.description =
        "s3://" + bucket + "/" + this.prefix + " (endpoint " + (endpoint == null ? "AWS default" : endpoint)
            + ", region " + region + ")";

    this.credentials =
        accessKey != null
            ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey))
            : DefaultCredentialsProvider.builder().build();
    S3ClientBuilder builder =
        S3Client.builder()
            .region(Region.of(region))
            .forcePathStyle(pathStyle)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                Apache5HttpClient.builder()
                    .connectionTimeout(connectionTimeout)
                    .socketTimeout(readTimeout)
                    .maxConnections(maxConnections))
            // One attempt per request: retries are the StorePolicy's alone (two layers would multiply attempts).
            .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
    if (endpointUri != null) {
      builder.endpointOverride(endpointUri);
    }
    try {
      this.client = builder.build();
    } catch (SdkException e) {
      throw new IllegalArgumentException("cannot create the S3 client for " + description + ": " + e.getMessage(), e);
    }
  }

  /** Opens a store on {@code bucket} under {@code prefix} ("" for the whole bucket) with the given settings. */
  static S3BlobStore open(String bucket, String prefix, StoreSettings settings) {
    return new S3BlobStore(bucket, prefix, settings);
  }

  /** A builder for a store; its setting names are those of the URI's query parameters. */
  public static Builder builder() {
    return new Builder();
  }

  /** The bucket. */
  public String bucket() {
    return bucket;
  }

  /** The key prefix of every blob: empty, or ending in '/'. */
  public String prefix() {
    return prefix;
  }

  /** The endpoint override (without any user info), or null for AWS's own endpoint. */
  public String endpoint() {
    return endpoint;
  }

  /** The region requests are signed for. */
  public String region() {
    return region;
  }

  /** The multipart threshold in bytes. */
  public long multipartThreshold() {
    return multipartThreshold;
  }

  /** The multipart part size in bytes. */
  public long partSize() {
    return partSize;
  }

  /** The ListObjectsV2 page size. */
  public int listPageSize() {
    return listPageSize;
  }

  /** The SDK client, for tests in this package. */
  S3Client client() {
    return client;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public String toString() {
    return "S3BlobStore(" + description + ")";
  }

  // ---------------------------------------------------------------------------------------------------- reads

  @Override
  public InputStream read(String blobName) throws IOException {
    ensureOpen();
    String key = key(blobName);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw translate(e, blobName, "read");
    }
    Long contentLength = in.response().contentLength();
    return new ObjectStream(in, blobName, 0, contentLength == null ? -1 : contentLength, 0);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    ensureOpen();
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "negative offset or length reading " + BlobStoreException.range(offset, length) + " of blob " + blobName);
    }
    String key = key(blobName);
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("range " + BlobStoreException.range(offset, length) + " overflows");
    }
    if (length == 0) {
      // No GET for an empty range, but the blob must exist and the offset must lie within it.
      long size = length(blobName);
      if (offset > size) {
        throw pastEnd(blobName, offset, length, size);
      }
      return InputStream.nullInputStream();
    }
    long last = offset + length - 1;
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(b -> b.bucket(bucket).key(key).range("bytes=" + offset + "-" + last));
    } catch (AwsServiceException e) {
      if (e.statusCode() == 416) {
        throw pastEnd(blobName, offset, length, lengthForMessage(blobName), e);
      }
      throw translate(e, blobName, "read " + BlobStoreException.range(offset, length));
    } catch (SdkException e) {
      throw translate(e, blobName, "read " + BlobStoreException.range(offset, length));
    }
    try {
      GetObjectResponse response = in.response();
      String contentRange = response.contentRange();
      if (contentRange == null) {
        // A 206 always names its range: without one, the response's headers were cut short (a dropped
        // connection can end the header block early), so asking again may pass.
        Long total = response.contentLength();
        if (total == null || response.sdkHttpResponse().statusCode() == 206) {
          throw new BlobStoreException(
              description, blobName, "ranged read " + BlobStoreException.range(offset, length) + " got a response "
                  + (total == null ? "with neither a Content-Range nor a Content-Length" : "206 without a Content-Range")
                  + ": its headers were cut short", null, true);
        }
        // A 200: the server ignored the range and sent the whole blob (S3 never does; some compatible stores might).
        if (offset + length > total) {
          throw pastEnd(blobName, offset, length, total);
        }
        in.skipNBytes(offset);
        return new ObjectStream(in, blobName, offset, length, offset);
      }
      long[] parsed = parseContentRange(contentRange);
      if (parsed == null || parsed[0] != offset) {
        throw new BlobStoreException(
            description, blobName, "ranged read " + BlobStoreException.range(offset, length)
                + " got an unexpected Content-Range '" + contentRange + "'");
      }
      if (parsed[1] < last) {
        throw pastEnd(blobName, offset, length, parsed[2] >= 0 ? parsed[2] : parsed[1] + 1);
      }
      ObjectStream stream = new ObjectStream(in, blobName, offset, length, 0);
      in = null;
      return stream;
    } catch (IOException | RuntimeException e) {
      if (in != null) {
        abortQuietly(in);
      }
      if (e instanceof BlobStoreException bse) {
        throw bse;
      }
      if (e instanceof SdkException se) {
        throw translate(se, blobName, "read " + BlobStoreException.range(offset, length));
      }
      throw new BlobStoreException(
          description, blobName, "ranged read " + BlobStoreException.range(offset, length) + " failed: " + e, e, isTransient(e));
    }
  }

  /** Parses {@code bytes first-last/total} (total may be '*'): {first, last, total or -1}, or null. */
  static long[] parseContentRange(String contentRange) {
    String s = contentRange.trim();
    if (!s.regionMatches(true, 0, "bytes ", 0, 6)) {
      return null;
    }
    s = s.substring(6).trim();
    int dash = s.indexOf('-');
    int slash = s.indexOf('/');
    if (dash < 0 || slash < dash) {
      return null;
    }
    try {
      long first = Long.parseLong(s.substring(0, dash).trim());
      long last = Long.parseLong(s.substring(dash + 1, slash).trim());
      String totalText = s.substring(slash + 1).trim();
      long total = totalText.equals("*") ? -1 : Long.parseLong(totalText);
      return new long[] {first, last, total};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private BlobStoreException pastEnd(String blobName, long offset, long length, long size) {
    return pastEnd(blobName, offset, length, size, null);
  }

  private BlobStoreException pastEnd(String blobName, long offset, long length, long size, Throwable cause) {
    return new BlobStoreException(
        description,
        blobName,
        "range " + BlobStoreException.range(offset, length) + " is past the end of the blob (length "
            + (size >= 0 ? Long.toString(size) : "unknown") + ")",
        cause);
  }

  /** The blob's length for an error message, or -1 if it cannot be had. */
  private long lengthForMessage(String blobName) throws IOException {
    try {
      return length(blobName);
    } catch (BlobNotFoundException e) {
      throw e;
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public long length(String blobName) throws IOException {
    ensureOpen();
    String key = key(blobName);
    try {
      Long length = client.headObject(b -> b.bucket(bucket).key(key)).contentLength();
      bucketSeen = true;
      return length == null ? 0 : length;
    } catch (SdkException e) {
      throw translate(e, blobName, "length (HEAD)");
    }
  }

  // --------------------------------------------------------------------------------------------------- writes

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    ensureOpen();
    Objects.requireNonNull(data, "data");
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " writing blob " + blobName);
    }
    String key = key(blobName);
    if (length == 0 || length < multipartThreshold) {
      putSingle(blobName, key, data, (int) length);
    } else {
      putMultipart(blobName, key, data, length);
    }
  }

  private void putSingle(String blobName, String key, InputStream data, int length) throws IOException {
    // Read everything first: nothing is sent unless the source delivered every byte.
    byte[] buffer = new byte[length];
    readFully(data, buffer, length, blobName, 0, length);
    PutObjectRequest request =
        PutObjectRequest.builder().bucket(bucket).key(key).contentLength((long) length).contentType(CONTENT_TYPE).build();
    try {
      client.putObject(request, RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer), length, CONTENT_TYPE));
      bucketSeen = true;
    } catch (SdkException e) {
      throw translate(e, blobName, "write (PUT of " + length + " bytes)");
    }
  }

  private void putMultipart(String blobName, String key, InputStream data, long length) throws IOException {
    long part = partSize;
    if ((length + part - 1) / part > MAX_PARTS) {
      // Grow the part to stay within S3's 10,000 parts, rounded up to a whole MiB.
      part = (((length + MAX_PARTS - 1) / MAX_PARTS) + (1 << 20) - 1) & ~((1L << 20) - 1);
      if (part > MAX_BUFFERED) {
        throw new BlobStoreException(
            description, blobName, "blob of " + length + " bytes is too large for " + MAX_PARTS + " parts of at most 1gb");
      }
    }
    String uploadId;
    try {
      uploadId =
          client
              .createMultipartUpload(
                  b -> b.bucket(bucket).key(key).contentType(CONTENT_TYPE).checksumAlgorithm(ChecksumAlgorithm.CRC32))
              .uploadId();
    } catch (SdkException e) {
      throw translate(e, blobName, "write (create multipart upload)");
    }
    try {
      byte[] buffer = new byte[(int) Math.min(part, length)];
      List<CompletedPart> parts = new ArrayList<>();
      long written = 0;
      for (int partNumber = 1; written < length; partNumber++) {
        int n = (int) Math.min(part, length - written);
        readFully(data, buffer, n, blobName, written, length);
        int number = partNumber;
        UploadPartResponse response;
        try {
          response =
              client.uploadPart(
                  b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(number).contentLength((long) n)
                      .checksumAlgorithm(ChecksumAlgorithm.CRC32),
                  RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer, 0, n), n, CONTENT_TYPE));
        } catch (SdkException e) {
          throw translate(e, blobName, "write (upload part " + number + " of a multipart upload)");
        }
        parts.add(
            CompletedPart.builder().partNumber(number).eTag(response.eTag()).checksumCRC32(response.checksumCRC32()).build());
        written += n;
      }
      try {
        client.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
      } catch (SdkException e) {
        throw translate(e, blobName, "write (complete multipart upload)");
      }
      bucketSeen = true;
    } catch (IOException | RuntimeException | Error e) {
      try {
        client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
      } catch (RuntimeException abortFailure) {
        e.addSuppressed(
            new BlobStoreException(
                description, blobName, "could not abort multipart upload " + uploadId + ": " + abortFailure.getMessage(), abortFailure));
      }
      throw e;
    }
  }

  /** Reads exactly {@code n} bytes of the source into {@code buffer}, failing if it throws or ends early. */
  private void readFully(InputStream data, byte[] buffer, int n, String blobName, long before, long total)
      throws BlobStoreException {
    int read = 0;
    try {
      while (read < n) {
        int r = data.read(buffer, read, n - read);
        if (r < 0) {
          throw new EOFException(
              "the data ended after " + (before + read) + " of the " + total + " bytes announced");
        }
        read += r;
      }
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "write failed, nothing was stored: " + e, e);
    }
  }

  // ------------------------------------------------------------------------------------------ list and delete

  @Override
  public List<BlobMetadata> list(String listPrefix) throws IOException {
    ensureOpen();
    BlobNames.validatePrefix(listPrefix);
    String fullPrefix = prefix + listPrefix;
    List<BlobMetadata> result = new ArrayList<>();
    String token = null;
    Set<String> tokensSeen = new java.util.HashSet<>();
    do {
      ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(bucket).maxKeys(listPageSize);
      if (!fullPrefix.isEmpty()) {
        request.prefix(fullPrefix);
      }
      if (token != null) {
        request.continuationToken(token);
      }
      ListObjectsV2Response response;
      try {
        response = client.listObjectsV2(request.build());
      } catch (SdkException e) {
        throw translate(e, null, "list of prefix '" + listPrefix + "'");
      }
      bucketSeen = true;
      for (S3Object object : response.contents()) {
        String key = object.key();
        if (!key.startsWith(prefix)) {
          continue;
        }
        String name = key.substring(prefix.length());
        if (name.isEmpty() || name.endsWith("/")) {
          continue; // "folder" markers made by consoles and other tools are not blobs
        }
        result.add(new BlobMetadata(name, object.size() == null ? 0 : object.size()));
      }
      token = Boolean.TRUE.equals(response.isTruncated()) ? response.nextContinuationToken() : null;
      if (token != null && !tokensSeen.add(token)) {
        throw new BlobStoreException(
            description, null, "listing prefix '" + listPrefix + "' failed: the server repeated a continuation token");
      }
    } while (token != null);
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  @Override
  public void delete(String blobName) throws IOException {
    ensureOpen();
    String key = key(blobName);
    try {
      client.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      BlobStoreException translated = translate(e, blobName, "delete");
      if (translated instanceof BlobNotFoundException) {
        return;
      }
      throw translated;
    }
  }

  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    ensureOpen();
    Map<String, String> keys = new LinkedHashMap<>();
    for (String name : blobNames) {
      keys.put(key(name), name); // validates every name before deleting any
    }
    List<String> all = new ArrayList<>(new LinkedHashSet<>(keys.keySet()));
    for (int from = 0; from < all.size(); from += MAX_DELETE_BATCH) {
      List<ObjectIdentifier> batch =
          all.subList(from, Math.min(all.size(), from + MAX_DELETE_BATCH)).stream()
              .map(k -> ObjectIdentifier.builder().key(k).build())
              .toList();
      DeleteObjectsResponse response;
      try {
        response = client.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(batch).quiet(true)));
      } catch (SdkException e) {
        throw translate(e, null, "batch delete of " + batch.size() + " blobs");
      }
      List<S3Error> errors =
          response.errors().stream().filter(err -> !"NoSuchKey".equals(err.code())).toList();
      if (!errors.isEmpty()) {
        StringBuilder sb = new StringBuilder("batch delete failed for " + errors.size() + " of " + batch.size() + " blobs: ");
        for (int i = 0; i < Math.min(10, errors.size()); i++) {
          S3Error err = errors.get(i);
          sb.append(i == 0 ? "" : ", ")
              .append(keys.getOrDefault(err.key(), err.key()))
              .append(" (")
              .append(err.code())
              .append(": ")
              .append(err.message())
              .append(')');
        }
        if (errors.size() > 10) {
          sb.append(", ...");
        }
        // Deletes are idempotent: the batch may be sent again if every failure was a server error or throttling.
        boolean retryable = errors.stream()
            .allMatch(err -> isIn(THROTTLING_ERROR_CODES, err.code()) || isIn(TRANSIENT_ERROR_CODES, err.code()));
        throw new BlobStoreException(description, null, sb.toString(), null, retryable);
      }
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        client.close();
      } finally {
        if (credentials instanceof AutoCloseable closeable) {
          try {
            closeable.close();
          } catch (Exception e) {
            // nothing to release that matters once the client is closed
          }
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------------- helpers

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("blob store " + description + " is closed");
    }
  }

  private String key(String blobName) {
    return prefix + BlobNames.validate(blobName);
  }

  /**
   * Turns an SDK exception into a {@link BlobStoreException} that says what is wrong and what to check, and
   * whether sending the same request again may pass ({@link BlobStoreException#isRetryable()}, see the class
   * comment). The store's description (backend, bucket, endpoint, region) is part of every message.
   */
  BlobStoreException translate(SdkException e, String blobName, String action) {
    if (e instanceof AwsServiceException ase) {
      String code = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorCode();
      String serviceMessage = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorMessage();
      int status = ase.statusCode();
      String detail = " [S3 status " + status + (code == null ? "" : ", code " + code)
          + (serviceMessage == null ? "" : ": " + serviceMessage) + "]";
      if ("NoSuchBucket".equals(code) || e instanceof NoSuchBucketException) {
        return noSuchBucket(blobName, action, detail, e);
      }
      if ("NoSuchKey".equals(code) || e instanceof NoSuchKeyException || (status == 404 && blobName != null && code == null)) {
        // A HEAD has no body, so a missing bucket looks like a missing key: tell them apart once.
        if (blobName != null && bucketMissing()) {
          return noSuchBucket(blobName, action, " [S3 status " + status + ", and HEAD of the bucket is 404 too]", e);
        }
        return new BlobNotFoundException(description, blobName, e);
      }
      if (ase.isThrottlingException() || status == 429 || isIn(THROTTLING_ERROR_CODES, code)) {
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: " + endpointText() + " is throttling requests (slow down)" + detail, e, true);
      }
      if (status >= 500 || status == 408 || isIn(TRANSIENT_ERROR_CODES, code)) {
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: " + (status >= 500 ? "server error at " : "transient error at ") + endpointText()
                + detail, e, true);
      }
      if (ase.isClockSkewException()) {
        // The SDK has corrected its clock offset from this response's Date: the next request is signed right.
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: the local clock is too far from the server's; check the clock (NTP)" + detail, e, true);
      }
      if ("InvalidAccessKeyId".equals(code)) {
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: the access key id is not known to " + endpointText()
                + "; check the '" + ACCESS_KEY + "' setting (or the credentials the AWS default provider chain found)" + detail, e);
      }
      if ("SignatureDoesNotMatch".equals(code)) {
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: the request signature does not match, so the secret key is wrong for this access key;"
                + " check the '" + SECRET_KEY + "' setting (or the credentials the AWS default provider chain found)" + detail, e);
      }
      if ("PermanentRedirect".equals(code) || "AuthorizationHeaderMalformed".equals(code) || status == 301) {
        String bucketRegion = ase.awsErrorDetails() == null || ase.awsErrorDetails().sdkHttpResponse() == null
            ? null
            : ase.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region").orElse(null);
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: bucket '" + bucket + "' is not in region " + region
                + (bucketRegion == null ? "" : " but in " + bucketRegion) + "; check the '" + REGION + "' setting" + detail, e);
      }
      if (status == 403 || status == 401 || "AccessDenied".equals(code)) {
        return new BlobStoreException(description, blobName,
            "S3 " + action + " failed: access denied to bucket '" + bucket + "' at " + endpointText()
                + (code == null ? " (the response has no error code, as for a HEAD, so the cause may be a wrong access key,"
                    + " a wrong secret key or a missing permission)" : "")
                + "; check the credentials ('" + ACCESS_KEY + "' / '" + SECRET_KEY + "' or the AWS default provider chain)"
                + " and that they are allowed to use this bucket and prefix" + detail, e);
      }
      // Any other 4xx (400, 412, 416...): the request itself is wrong, sending it again would not help.
      return new BlobStoreException(description, blobName, "S3 " + action + " failed" + detail, e);
    }
    if (e instanceof SdkClientException && String.valueOf(e.getMessage()).contains("Unable to load credentials")) {
      // Checked before the network causes: the provider chain's own failed lookups (instance metadata) are no
      // reason to blame the endpoint.
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: no AWS credentials found; give the '" + ACCESS_KEY + "' and '" + SECRET_KEY
              + "' settings or configure the AWS default provider chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,"
              + " a profile, or an instance or container role)", e);
    }
    Throwable cause = rootCauseOfInterest(e);
    String timeouts = " (" + CONNECTION_TIMEOUT + " " + format(connectionTimeout) + ", " + READ_TIMEOUT + " "
        + format(readTimeout) + ")";
    if (cause instanceof UnknownHostException) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: cannot resolve the host of " + endpointText() + " (" + cause.getMessage()
              + "); check the '" + ENDPOINT + "' and '" + REGION + "' settings and DNS", e, true);
    }
    if (cause instanceof ConnectException || cause instanceof NoRouteToHostException || isConnectTimeout(cause)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: cannot connect to " + endpointText() + " (" + cause.getMessage()
              + "); check the '" + ENDPOINT + "' setting and that the server is running and reachable" + timeouts, e, true);
    }
    if (cause instanceof SocketTimeoutException) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: timed out waiting for " + endpointText() + timeouts
              + "; check that the server is healthy, or raise the timeouts", e, true);
    }
    return new BlobStoreException(description, blobName, "S3 " + action + " failed: " + e.getMessage(), e, isTransient(e));
  }

  private BlobStoreException noSuchBucket(String blobName, String action, String detail, Throwable e) {
    return new BlobStoreException(description, blobName,
        "S3 " + action + " failed: bucket '" + bucket + "' does not exist at " + endpointText()
            + "; check the bucket name, the '" + ENDPOINT + "' and '" + REGION + "' settings, or create the bucket" + detail, e);
  }

  /** Whether the bucket is missing; asked (HEAD bucket) only until the bucket has once been seen. */
  private boolean bucketMissing() {
    if (bucketSeen) {
      return false;
    }
    try {
      client.headBucket(b -> b.bucket(bucket));
      bucketSeen = true;
      return false;
    } catch (NoSuchBucketException e) {
      return true;
    } catch (AwsServiceException e) {
      return e.statusCode() == 404;
    } catch (SdkException e) {
      return false;
    }
  }

  private String endpointText() {
    return endpoint == null ? "the AWS S3 endpoint of region " + region : "endpoint " + endpoint;
  }

  /** The first cause that tells why no connection or response came: a host, connect or socket time-out problem. */
  private static Throwable rootCauseOfInterest(Throwable e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
      if (t instanceof UnknownHostException
          || t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof SocketTimeoutException
          || isConnectTimeout(t)) {
        return t;
      }
    }
    return null;
  }

  /** Null-safe {@code codes.contains(code)} ({@link Set#of} sets throw on null). */
  private static boolean isIn(Set<String> codes, String code) {
    return code != null && codes.contains(code);
  }

  /** Apache HttpClient's {@code ConnectTimeoutException} (an {@link InterruptedIOException}, by name: no import). */
  private static boolean isConnectTimeout(Throwable t) {
    return t != null && t.getClass().getSimpleName().equals("ConnectTimeoutException");
  }

  /**
   * Whether a failure with no S3 error response is a transport failure that a second attempt may pass: an I/O
   * error in the cause chain (connection refused or reset, socket or connect time-out, TLS error, response cut
   * short, host not resolved), unless the thread was interrupted.
   */
  static boolean isTransient(Throwable e) {
    boolean io = false;
    Throwable t = e;
    for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
      if (t instanceof SocketTimeoutException || isConnectTimeout(t)) {
        return true;
      }
      if (t instanceof AbortedException || t instanceof InterruptedException || t instanceof ClosedByInterruptException
          || (t instanceof InterruptedIOException && !t.getClass().getSimpleName().endsWith("TimeoutException"))) {
        return false; // an interrupted thread is being told to stop, not to try again
      }
      io |= t instanceof IOException;
    }
    return io;
  }

  private static void abortQuietly(ResponseInputStream<?> in) {
    try {
      in.abort();
      in.close();
    } catch (IOException | RuntimeException ignored) {
      // the stream is being discarded after another failure
    }
  }

  private static String format(Duration d) {
    long millis = d.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  private static String emptyToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static void requirePositive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("s3 blob store setting '" + name + "' must be positive, got " + d);
    }
  }

  static String normalizePrefix(String prefix) {
    return BlobNames.normalizePrefix(prefix, "s3 key prefix");
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
          "s3 blob store setting '" + ENDPOINT + "' must not hold user info; use '" + ACCESS_KEY + "' and '" + SECRET_KEY + "'");
    }
    return uri;
  }

  private static String defaultRegion(boolean hasEndpoint) {
    if (hasEndpoint) {
      // S3-compatible stores mostly ignore the region but the signature needs one.
      return "us-east-1";
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion().id();
    } catch (SdkClientException e) {
      throw new IllegalArgumentException(
          "s3 blob store needs a region: give the '" + REGION + "' setting (e.g. ?region=eu-west-1) or set AWS_REGION", e);
    }
  }

  /**
   * A stream over a GET response that checks it delivers exactly the expected bytes and maps errors.
   *
   * <p>One thread reads it; any thread may close it, also while the reader is blocked on the socket (the store
   * policy's deadline timer does). Unless the whole response body has been received, {@link #close()} aborts the
   * request: the HTTP client closes the connection at once, so the blocked read fails. A plain close would drain
   * the rest of the body instead, which blocks on a stalled server (or downloads the rest of an object whose range
   * the server ignored). A read that returns or fails once the stream is closed reports the close, not a short
   * response: the data or end of stream it got may be an artefact of the abort.
   */
  private final class ObjectStream extends InputStream {
    private final ResponseInputStream<GetObjectResponse> in;
    private final String blobName;
    private final long offset;
    private final long expected;
    /** The response body's length (its Content-Length), or -1 if unknown. */
    private final long bodyLength;
    /** Bytes taken from the response body, skipped ones included; written by the reader, read by close(). */
    private volatile long received;
    /** Whether the response body has ended (the HTTP stream returned -1); written by the reader. */
    private volatile boolean bodyEnded;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Bytes delivered; the reader's own. */
    private long position;
    private boolean eof;

    /**
     * {@code expected} is the number of bytes to deliver, or -1 if unknown (read to the end); {@code received} the
     * bytes of the body already consumed (skipped) before the first byte to deliver.
     */
    ObjectStream(ResponseInputStream<GetObjectResponse> in, String blobName, long offset, long expected, long received) {
      this.in = in;
      this.blobName = blobName;
      this.offset = offset;
      this.expected = expected;
      this.received = received;
      Long contentLength = in.response().contentLength();
      this.bodyLength = contentLength == null ? -1 : contentLength;
    }

    private long remaining() {
      if (eof) {
        return 0;
      }
      return expected < 0 ? Long.MAX_VALUE : expected - position;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (closed.get()) {
        throw new BlobStoreException(description, blobName, "S3 read failed: the stream is closed", null, false);
      }
      if (len == 0) {
        return 0;
      }
      if (remaining() == 0) {
        return -1;
      }
      int n;
      try {
        n = in.read(b, off, (int) Math.min(len, remaining()));
      } catch (SdkException e) {
        throw closed.get() ? closedWhileReading(e) : translate(e, blobName, "read at offset " + (offset + position));
      } catch (IOException e) {
        if (closed.get()) {
          throw closedWhileReading(e);
        }
        throw new BlobStoreException(
            description, blobName, "S3 read failed at offset " + (offset + position) + ": " + e, e, isTransient(e));
      }
      if (closed.get()) {
        throw closedWhileReading(null);
      }
      if (n < 0) {
        bodyEnded = true;
        if (expected >= 0) {
          throw new BlobStoreException(description, blobName,
              "S3 response ended at offset " + (offset + position) + ", before the end of "
                  + BlobStoreException.range(offset, expected), null, true);
        }
        eof = true;
        return -1;
      }
      position += n;
      received += n; // only this thread writes it
      return n;
    }

    private BlobStoreException closedWhileReading(Throwable cause) {
      return new BlobStoreException(description, blobName,
          "S3 read at offset " + (offset + position) + " failed: the stream was closed while it was being read,"
              + " and its request aborted", cause, false);
    }

    /** Idempotent and thread-safe; see the class comment. */
    @Override
    public void close() throws IOException {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      if (bodyEnded || (bodyLength >= 0 && received >= bodyLength)) {
        in.close(); // nothing left to drain: the connection goes back to the pool
      } else {
        in.abort(); // closes the connection instead of draining it; a read blocked on it fails at once
      }
    }
  }

  /**
   * Builds an {@link S3BlobStore} from the same settings, by the same names, as the URI's query parameters. Typed
   * methods set the common ones; {@link #setting(String, String)} sets any by name. {@link #build()} rejects an
   * unknown setting by name, as {@link BlobStores#open(URI)} does.
   */
  public static final class Builder {
    private String bucket;
    private String prefix = "";
    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder() {}

    /** The bucket (required). */
    public Builder bucket(String bucket) {
      this.bucket = bucket;
      return this;
    }

    /** The key prefix under which blobs live; empty (the default) for the whole bucket. */
    public Builder prefix(String prefix) {
      this.prefix = prefix;
      return this;
    }

    /** Sets a setting by its name, as in the URI query; the value is parsed, and the name checked, by {@link #build()}. */
    public Builder setting(String name, String value) {
      settings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Sets every setting of {@code values}. */
    public Builder settings(Map<String, String> values) {
      values.forEach(this::setting);
      return this;
    }

    /** {@value S3BlobStore#REGION}. */
    public Builder region(String region) {
      return setting(REGION, region);
    }

    /** {@value S3BlobStore#ENDPOINT}: e.g. {@code http://127.0.0.1:9000} for MinIO. */
    public Builder endpoint(String endpoint) {
      return setting(ENDPOINT, endpoint);
    }

    /** {@value S3BlobStore#PATH_STYLE_ACCESS}. */
    public Builder pathStyleAccess(boolean pathStyle) {
      return setting(PATH_STYLE_ACCESS, Boolean.toString(pathStyle));
    }

    /** {@value S3BlobStore#ACCESS_KEY} and {@value S3BlobStore#SECRET_KEY}. */
    public Builder credentials(String accessKey, String secretKey) {
      return setting(ACCESS_KEY, accessKey).setting(SECRET_KEY, secretKey);
    }

    /** {@value S3BlobStore#CONNECTION_TIMEOUT}. */
    public Builder connectionTimeout(Duration timeout) {
      return setting(CONNECTION_TIMEOUT, timeout.toString());
    }

    /** {@value S3BlobStore#READ_TIMEOUT}. */
    public Builder readTimeout(Duration timeout) {
      return setting(READ_TIMEOUT, timeout.toString());
    }

    /** {@value S3BlobStore#MAX_CONNECTIONS}. */
    public Builder maxConnections(int connections) {
      return setting(MAX_CONNECTIONS, Integer.toString(connections));
    }

    /** {@value S3BlobStore#MULTIPART_THRESHOLD}, in bytes. */
    public Builder multipartThreshold(long bytes) {
      return setting(MULTIPART_THRESHOLD, Long.toString(bytes));
    }

    /** {@value S3BlobStore#PART_SIZE}, in bytes. */
    public Builder partSize(long bytes) {
      return setting(PART_SIZE, Long.toString(bytes));
    }

    /** {@value S3BlobStore#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int keys) {
      return setting(LIST_PAGE_SIZE, Integer.toString(keys));
    }

    /**
     * Creates the store (no request is sent yet; {@link dev.permafrost.blob.BlobStoreVerifier} checks access).
     *
     * @throws IllegalArgumentException for a missing bucket, an unknown setting or a malformed value
     */
    public S3BlobStore build() {
      return S3BlobStore.open(bucket, prefix, new StoreSettings("s3", settings));
    }

    @Override
    public String toString() {
      return "S3BlobStore.Builder(s3://" + bucket + "/" + prefix + ", settings " + settings.keySet() + ")";
    }
  }
}
