/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.AbstractBlobStore;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNames;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreBuilder;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobInputStream;
import dev.permafrost.blob.StoreSettings;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.ResolveIdentityRequest;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A {@link dev.permafrost.blob.BlobStore} in an Amazon S3 bucket, or in any S3-compatible store (MinIO, Ceph RGW,
 * Cloudflare R2...) through the {@code endpoint} setting: {@code s3://bucket/prefix?region=eu-west-1}. Each blob is
 * the object {@code prefix/name}.
 *
 * <p>Open it by URI with {@link BlobStores#open(URI)} or programmatically with {@link #builder()}; both take the
 * same settings by the same names ({@link S3Settings}, and the {@code blobstore-s3} README), and both reject an
 * unknown setting by name. Names, ranges, the open state and the exact length of ranged reads are checked by
 * {@link AbstractBlobStore}.
 *
 * <ul>
 *   <li>Reads are GETs, ranged reads {@code Range: bytes=a-b} GETs; a range past the end of the blob fails with a
 *       {@link BlobStoreException} naming the range and the blob's length (whether the server answers 416 or a
 *       short {@code Content-Range}).
 *   <li>A blob of at most {@code single_upload_threshold} bytes is read from the source into memory and sent in one
 *       PUT with its length; a larger one is sent as a multipart upload of {@code part_size} parts, each buffered in
 *       memory, so that nothing is sent unless the source delivered it whole. Any failure, including the source
 *       stream failing or ending short, aborts the upload, so readers never see a partial blob.
 *   <li>Listing follows every ListObjectsV2 page; batch deletes use DeleteObjects in batches of at most 1000.
 * </ul>
 *
 * <p><b>Credentials</b>, for the client the store builds: the {@code access_key} / {@code secret_key} settings
 * (with {@code session_token} for temporary credentials) when given; else the {@code profile} setting's profile of
 * the AWS config and shared credentials files; else an {@link AwsCredentialsProvider} given to
 * {@link Builder#credentialsProvider(AwsCredentialsProvider)}; otherwise the AWS SDK's default provider chain
 * (environment, system properties, profile files, container and instance roles). None of them, nor the profile's
 * name, ever appears in {@link #describe()}, {@link #toString()} or any exception message. The application may also
 * give its own client to {@link Builder#client(S3Client)}: the store then uses it as it is, and never closes it.
 *
 * <p><b>Failures.</b> The SDK client the store builds makes exactly one attempt per request: its own retries are
 * off, because retries, deadlines, hedging and rate limits belong to the {@link dev.permafrost.blob.StorePolicy} that
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
 *       secret key, invalid or expired session token, access denied), a bucket in another region, 400, 412, 416 and
 *       every other 4xx, a range past the end of the blob, missing credentials, a failing or short source stream in
 *       {@code write}, an interrupted thread, and a stream closed while it was read.
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
public final class S3BlobStore extends AbstractBlobStore {
  static final int MAX_PARTS = 10_000;
  static final int MAX_DELETE_BATCH = 1000;

  private static final String CONTENT_TYPE = "application/octet-stream";

  private final S3Client client;
  /** Whether the store built {@link #client}, so that closing the store closes it. */
  private final boolean ownsClient;
  /**
   * A credentials provider the store built, closed with the store (the SDK closes it with the client too; closing
   * twice does no harm); null for the application's.
   */
  private final AwsCredentialsProvider ownedCredentials;
  private final String bucket;
  private final String prefix;
  private final String endpoint;
  private final String region;
  private final long singleUploadThreshold;
  private final long partSize;
  private final int listPageSize;
  private final String description;
  private final S3Errors errors;
  /** Set once the bucket is known to exist, so that a 404 on HEAD is only checked against it once. */
  private volatile boolean bucketSeen;

  private S3BlobStore(String bucket, String prefix, StoreSettings storeSettings, S3Client givenClient,
      AwsCredentialsProvider givenCredentials) {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException("s3 blob store needs a bucket (s3://bucket/prefix)");
    }
    this.bucket = bucket;
    this.prefix = BlobNames.normalizePrefix(prefix, "s3 key prefix");
    S3Settings settings = S3Settings.parse(storeSettings, givenClient != null, givenCredentials != null);
    this.singleUploadThreshold = settings.singleUploadThreshold;
    this.partSize = settings.partSize;
    this.listPageSize = settings.listPageSize;

    if (givenClient != null) {
      S3ServiceClientConfiguration config = givenClient.serviceClientConfiguration();
      this.client = givenClient;
      this.ownsClient = false;
      this.ownedCredentials = null;
      this.endpoint = config.endpointOverride().map(BlobStores::redact).orElse(null);
      this.region = config.region() == null ? "(unknown)" : config.region().id();
      this.description = describe(this.bucket, this.prefix, endpoint, region) + ", the application's S3Client)";
      this.errors = new S3Errors(description, bucket, region, endpoint, null, null, settings.credentialsSource,
          this::bucketMissing);
      return;
    }

    ProfileFile profileFile = settings.profile == null ? null : profileFile(settings.profile);
    this.endpoint = settings.endpoint == null ? null : BlobStores.redact(settings.endpoint);
    this.region = settings.region != null
        ? settings.region
        : defaultRegion(settings.endpoint != null, settings.profile, profileFile);
    this.description = describe(this.bucket, this.prefix, endpoint, region) + ")";
    this.errors = new S3Errors(description, bucket, region, endpoint, settings.connectTimeout, settings.readTimeout,
        settings.credentialsSource, this::bucketMissing);

    AwsCredentialsProvider credentials = switch (settings.credentialsSource) {
      case KEYS -> StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey, settings.secretKey));
      case SESSION -> StaticCredentialsProvider.create(
          AwsSessionCredentials.create(settings.accessKey, settings.secretKey, settings.sessionToken));
      case PROFILE -> ProfileCredentialsProvider.builder().profileFile(profileFile).profileName(settings.profile).build();
      case PROVIDER -> new ApplicationCredentials(givenCredentials); // the SDK's client would close it
      case DEFAULT_CHAIN -> DefaultCredentialsProvider.builder().build();
      case CLIENT -> throw new AssertionError("no client was given");
    };
    this.ownedCredentials = givenCredentials != null ? null : credentials;
    this.ownsClient = true;
    S3ClientBuilder builder =
        S3Client.builder()
            .region(Region.of(region))
            .forcePathStyle(settings.pathStyleAccess)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                Apache5HttpClient.builder()
                    .connectionTimeout(settings.connectTimeout)
                    .socketTimeout(settings.readTimeout)
                    .maxConnections(settings.maxConnections))
            // One attempt per request: retries are the StorePolicy's alone (two layers would multiply attempts).
            .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
    if (settings.endpoint != null) {
      builder.endpointOverride(settings.endpoint);
    }
    try {
      this.client = builder.build();
    } catch (SdkException e) {
      closeQuietly(ownedCredentials);
      throw new IllegalArgumentException("cannot create the S3 client for " + description + ": " + e.getMessage(), e);
    }
  }

  /** "s3://bucket/prefix (endpoint e, region r", to be completed. */
  private static String describe(String bucket, String prefix, String endpoint, String region) {
    return "s3://" + bucket + "/" + prefix + " (endpoint " + (endpoint == null ? "AWS default" : endpoint)
        + ", region " + region;
  }

  /** Opens a store on {@code bucket} under {@code prefix} ("" for the whole bucket) with the given settings. */
  static S3BlobStore open(String bucket, String prefix, StoreSettings settings) {
    return new S3BlobStore(bucket, prefix, settings, null, null);
  }

  /** A builder for a store; its setting names are those of the URI's query parameters ({@link S3Settings}). */
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

  /** The largest blob, in bytes, written in one PUT; larger ones are multipart uploads. */
  public long singleUploadThreshold() {
    return singleUploadThreshold;
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
  protected InputStream openBlob(String blobName) throws IOException {
    String key = key(blobName);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw errors.translate(e, blobName, "read");
    }
    return new ObjectStream(in, blobName, 0, 0);
  }

  @Override
  protected InputStream openRange(String blobName, long offset, long length) throws IOException {
    String key = key(blobName);
    long last = offset + length - 1;
    String action = "read " + BlobStoreException.range(offset, length);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(b -> b.bucket(bucket).key(key).range("bytes=" + offset + "-" + last));
    } catch (AwsServiceException e) {
      if (e.statusCode() == 416) {
        throw rangeNotSatisfiable(blobName, offset, length, e, action);
      }
      throw errors.translate(e, blobName, action);
    } catch (SdkException e) {
      throw errors.translate(e, blobName, action);
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
          throw pastEnd(blobName, offset, length, total, null);
        }
        in.skipNBytes(offset);
        ObjectStream stream = new ObjectStream(in, blobName, 0, offset);
        in = null;
        return stream;
      }
      long[] parsed = parseContentRange(contentRange);
      if (parsed == null || parsed[0] != offset) {
        throw new BlobStoreException(
            description, blobName, "ranged read " + BlobStoreException.range(offset, length)
                + " got an unexpected Content-Range '" + contentRange + "'");
      }
      if (parsed[1] < last) {
        throw pastEnd(blobName, offset, length, parsed[2] >= 0 ? parsed[2] : parsed[1] + 1, null);
      }
      ObjectStream stream = new ObjectStream(in, blobName, offset, 0);
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
        throw errors.translate(se, blobName, action);
      }
      throw new BlobStoreException(
          description, blobName, "ranged read " + BlobStoreException.range(offset, length) + " failed: " + e, e,
          S3Errors.isTransient(e));
    }
  }

  /**
   * A 416: the range starts past the end of the blob. Its length, asked for with a HEAD, goes in the message; if it
   * cannot be had, the 416 is reported as it is (not retryable either).
   */
  private BlobStoreException rangeNotSatisfiable(String blobName, long offset, long length, AwsServiceException e,
      String action) throws IOException {
    long size;
    try {
      size = blobLength(blobName);
    } catch (BlobNotFoundException notFound) {
      throw notFound;
    } catch (IOException headFailure) {
      BlobStoreException failure = errors.translate(e, blobName, action);
      failure.addSuppressed(headFailure);
      return failure;
    }
    return pastEnd(blobName, offset, length, size, e);
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

  @Override
  protected long blobLength(String blobName) throws IOException {
    String key = key(blobName);
    try {
      Long length = client.headObject(b -> b.bucket(bucket).key(key)).contentLength();
      bucketSeen = true;
      return length == null ? 0 : length;
    } catch (SdkException e) {
      throw errors.translate(e, blobName, "length (HEAD)");
    }
  }

  // --------------------------------------------------------------------------------------------------- writes

  @Override
  protected void putBlob(String blobName, InputStream data, long length) throws IOException {
    String key = key(blobName);
    if (length <= singleUploadThreshold) {
      putSingle(blobName, key, data, (int) length);
    } else {
      putMultipart(blobName, key, data, length);
    }
  }

  private void putSingle(String blobName, String key, InputStream data, int length) throws IOException {
    // Read everything first: nothing is sent unless the source delivered every byte.
    byte[] buffer = readSource(blobName, data, length);
    PutObjectRequest request =
        PutObjectRequest.builder().bucket(bucket).key(key).contentLength((long) length).contentType(CONTENT_TYPE).build();
    try {
      client.putObject(request, RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer), length, CONTENT_TYPE));
      bucketSeen = true;
    } catch (SdkException e) {
      throw errors.translate(e, blobName, "write (PUT of " + length + " bytes)");
    }
  }

  private void putMultipart(String blobName, String key, InputStream data, long length) throws IOException {
    long part = partSize;
    if ((length + part - 1) / part > MAX_PARTS) {
      // Grow the part to stay within S3's 10,000 parts, rounded up to a whole MiB.
      part = (((length + MAX_PARTS - 1) / MAX_PARTS) + (1 << 20) - 1) & ~((1L << 20) - 1);
      if (part > S3Settings.MAX_BUFFERED) {
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
      throw errors.translate(e, blobName, "write (create multipart upload)");
    }
    try {
      byte[] buffer = new byte[(int) Math.min(part, length)];
      List<CompletedPart> parts = new ArrayList<>();
      long written = 0;
      for (int partNumber = 1; written < length; partNumber++) {
        int n = (int) Math.min(part, length - written);
        readPart(data, buffer, n, blobName, written, length);
        int number = partNumber;
        UploadPartResponse response;
        try {
          response =
              client.uploadPart(
                  b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(number).contentLength((long) n)
                      .checksumAlgorithm(ChecksumAlgorithm.CRC32),
                  RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer, 0, n), n, CONTENT_TYPE));
        } catch (SdkException e) {
          throw errors.translate(e, blobName, "write (upload part " + number + " of a multipart upload)");
        }
        parts.add(
            CompletedPart.builder().partNumber(number).eTag(response.eTag()).checksumCRC32(response.checksumCRC32()).build());
        written += n;
      }
      try {
        client.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
      } catch (SdkException e) {
        throw errors.translate(e, blobName, "write (complete multipart upload)");
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

  /**
   * Reads the next part, exactly {@code n} bytes of the source, into {@code buffer} (reused from part to part, which
   * {@link #readSource} does not do); fails, as {@code readSource} does, if the source throws or ends early.
   */
  private void readPart(InputStream data, byte[] buffer, int n, String blobName, long before, long total)
      throws BlobStoreException {
    int read;
    try {
      read = data.readNBytes(buffer, 0, n);
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "the data to write failed after some of the " + total
          + " bytes announced: " + e.getMessage(), e);
    }
    if (read < n) {
      throw new BlobStoreException(description, blobName, "the data to write ended after " + (before + read) + " of the "
          + total + " bytes announced", new EOFException());
    }
  }

  // ------------------------------------------------------------------------------------------ list and delete

  @Override
  protected List<BlobMetadata> listBlobs(String listPrefix) throws IOException {
    String fullPrefix = prefix + listPrefix;
    List<BlobMetadata> result = new ArrayList<>();
    String token = null;
    Set<String> tokensSeen = new HashSet<>();
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
        throw errors.translate(e, null, "list of prefix '" + listPrefix + "'");
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
  protected void deleteBlob(String blobName) throws IOException {
    String key = key(blobName);
    try {
      client.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      BlobStoreException translated = errors.translate(e, blobName, "delete");
      if (translated instanceof BlobNotFoundException) {
        return;
      }
      throw translated;
    }
  }

  @Override
  protected void deleteBlobs(Collection<String> blobNames) throws IOException {
    Map<String, String> keys = new LinkedHashMap<>(); // key -> blob name, without duplicates
    for (String name : blobNames) {
      keys.put(key(name), name);
    }
    List<String> all = new ArrayList<>(keys.keySet());
    for (int from = 0; from < all.size(); from += MAX_DELETE_BATCH) {
      List<ObjectIdentifier> batch =
          all.subList(from, Math.min(all.size(), from + MAX_DELETE_BATCH)).stream()
              .map(k -> ObjectIdentifier.builder().key(k).build())
              .toList();
      DeleteObjectsResponse response;
      try {
        response = client.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(batch).quiet(true)));
      } catch (SdkException e) {
        throw errors.translate(e, null, "batch delete of " + batch.size() + " blobs");
      }
      List<S3Error> failures =
          response.errors().stream().filter(err -> !"NoSuchKey".equals(err.code())).toList();
      if (!failures.isEmpty()) {
        StringBuilder sb = new StringBuilder("batch delete failed for " + failures.size() + " of " + batch.size() + " blobs: ");
        for (int i = 0; i < Math.min(10, failures.size()); i++) {
          S3Error err = failures.get(i);
          sb.append(i == 0 ? "" : ", ")
              .append(keys.getOrDefault(err.key(), err.key()))
              .append(" (")
              .append(err.code())
              .append(": ")
              .append(err.message())
              .append(')');
        }
        if (failures.size() > 10) {
          sb.append(", ...");
        }
        // Deletes are idempotent: the batch may be sent again if every failure was a server error or throttling.
        boolean retryable = failures.stream().allMatch(err -> S3Errors.isTransientCode(err.code()));
        throw new BlobStoreException(description, null, sb.toString(), null, retryable);
      }
    }
  }

  /** Closes the client and the credentials provider the store built; never those the application gave it. */
  @Override
  protected void closeStore() {
    try {
      if (ownsClient) {
        client.close();
      }
    } finally {
      closeQuietly(ownedCredentials);
    }
  }

  // -------------------------------------------------------------------------------------------------- helpers

  private String key(String blobName) {
    return prefix + blobName;
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

  private static void abortQuietly(ResponseInputStream<?> in) {
    try {
      in.abort();
      in.close();
    } catch (IOException | RuntimeException ignored) {
      // the stream is being discarded after another failure
    }
  }

  private static void closeQuietly(AwsCredentialsProvider credentials) {
    if (credentials instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // nothing to release that matters once the client is closed
      }
    }
  }

  /**
   * The AWS config and shared credentials files (where {@code aws.configFile} / {@code AWS_CONFIG_FILE} and
   * {@code aws.sharedCredentialsFile} / {@code AWS_SHARED_CREDENTIALS_FILE} say, by default {@code ~/.aws/config}
   * and {@code ~/.aws/credentials}), which must hold the profile.
   */
  private static ProfileFile profileFile(String profile) {
    ProfileFile file;
    try {
      file = ProfileFile.defaultProfileFile();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("s3 blob store setting '" + S3Settings.PROFILE + "': cannot read the AWS"
          + " config and shared credentials files: " + e.getMessage(), e);
    }
    if (file.profile(profile).isEmpty()) {
      // The profile's name is not printed, as no credentials setting is.
      throw new IllegalArgumentException("s3 blob store setting '" + S3Settings.PROFILE + "' names a profile that is"
          + " in neither the AWS config file nor the shared credentials file (by default ~/.aws/config and"
          + " ~/.aws/credentials; see AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE, or the aws.configFile and"
          + " aws.sharedCredentialsFile system properties)");
    }
    return file;
  }

  private static String defaultRegion(boolean hasEndpoint, String profile, ProfileFile profileFile) {
    if (hasEndpoint) {
      // S3-compatible stores mostly ignore the region but the signature needs one.
      return "us-east-1";
    }
    DefaultAwsRegionProviderChain.Builder chain = DefaultAwsRegionProviderChain.builder();
    if (profile != null) {
      chain.profileFile(() -> profileFile).profileName(profile);
    }
    try {
      return chain.build().getRegion().id();
    } catch (SdkException e) {
      throw new IllegalArgumentException(
          "s3 blob store needs a region: give the '" + S3Settings.REGION + "' setting (e.g. ?region=eu-west-1), set"
              + " AWS_REGION, or give the region in the profile", e);
    }
  }

  /**
   * The application's credentials provider, as the client the store builds sees it: not closeable, because the SDK
   * closes the provider of a client when it closes the client, and the application's provider is the application's
   * to close.
   */
  private static final class ApplicationCredentials implements AwsCredentialsProvider {
    private final AwsCredentialsProvider provider;

    ApplicationCredentials(AwsCredentialsProvider provider) {
      this.provider = provider;
    }

    @Override
    public AwsCredentials resolveCredentials() {
      return provider.resolveCredentials();
    }

    @Override
    public CompletableFuture<AwsCredentialsIdentity> resolveIdentity(ResolveIdentityRequest request) {
      return provider.resolveIdentity(request);
    }

    @Override
    public String toString() {
      return "the application's AwsCredentialsProvider";
    }
  }

  /**
   * A stream over a GET response body that maps errors, and decides on close whether the connection may be reused.
   * {@link AbstractBlobStore} makes a ranged one deliver exactly the range's bytes; this stream only counts what it
   * takes from the body, so that {@link #close()} knows whether the body was received whole, and fails a body that
   * ends before its {@code Content-Length}.
   *
   * <p>One thread reads it; any thread may close it, also while the reader is blocked on the socket (the store
   * policy's deadline timer does). Unless the whole response body has been received, {@link #close()} aborts the
   * request: the HTTP client closes the connection at once, so the blocked read fails. A plain close would drain
   * the rest of the body instead, which blocks on a stalled server (or downloads the rest of an object whose range
   * the server ignored). A read that returns or fails once the stream is closed reports the close, not a short
   * response: the data or end of stream it got may be an artefact of the abort.
   */
  private final class ObjectStream extends FilterBlobInputStream {
    private final ResponseInputStream<GetObjectResponse> response;
    private final String blobName;
    /** The offset in the blob of the body's first byte. */
    private final long bodyOffset;
    /** The response body's length (its Content-Length), or -1 if unknown. */
    private final long bodyLength;
    /** Bytes taken from the response body, skipped ones included; written by the reader, read by close(). */
    private volatile long received;
    /** Whether the response body has ended (the HTTP stream returned -1); written by the reader. */
    private volatile boolean bodyEnded;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** {@code received}: the bytes of the body already consumed (skipped) before the first byte to deliver. */
    ObjectStream(ResponseInputStream<GetObjectResponse> response, String blobName, long bodyOffset, long received) {
      super(response);
      this.response = response;
      this.blobName = blobName;
      this.bodyOffset = bodyOffset;
      this.received = received;
      Long contentLength = response.response().contentLength();
      this.bodyLength = contentLength == null ? -1 : contentLength;
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
      long at = bodyOffset + received;
      int n;
      try {
        n = response.read(b, off, len);
      } catch (SdkException e) {
        throw closed.get() ? closedWhileReading(at, e) : errors.translate(e, blobName, "read at offset " + at);
      } catch (IOException e) {
        throw closed.get() ? closedWhileReading(at, e) : errors.readFailure(e, blobName, at);
      }
      if (closed.get()) {
        throw closedWhileReading(at, null);
      }
      if (n < 0) {
        bodyEnded = true;
        if (bodyLength >= 0 && received < bodyLength) {
          throw new BlobStoreException(description, blobName, "S3 response ended at offset " + at + ", before the end"
              + " of its " + BlobStoreException.range(bodyOffset, bodyLength), null, true);
        }
        return -1;
      }
      received += n; // only this thread writes it
      return n;
    }

    @Override
    public int available() throws IOException {
      return closed.get() ? 0 : response.available();
    }

    private BlobStoreException closedWhileReading(long at, Throwable cause) {
      return new BlobStoreException(description, blobName,
          "S3 read at offset " + at + " failed: the stream was closed while it was being read,"
              + " and its request aborted", cause, false);
    }

    /** Idempotent and thread-safe; see the class comment. */
    @Override
    public void close() throws IOException {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      if (bodyEnded || (bodyLength >= 0 && received >= bodyLength)) {
        response.close(); // nothing left to drain: the connection goes back to the pool
      } else {
        response.abort(); // closes the connection instead of draining it; a read blocked on it fails at once
      }
    }
  }

  /**
   * Builds an {@link S3BlobStore} from the same settings, by the same names, as the URI's query parameters
   * ({@link S3Settings}). Typed methods set the common ones; {@link #setting(String, String)} sets any by name.
   * {@link #build()} rejects an unknown setting by name, as {@link BlobStores#open(URI)} does.
   *
   * <p>The application may give its own SDK objects: an {@link S3Client} ({@link #client(S3Client)}), used as it
   * is, or an {@link AwsCredentialsProvider} ({@link #credentialsProvider(AwsCredentialsProvider)}) for the client
   * the store builds. The store closes neither.
   *
   * <pre>{@code
   * S3Client client = S3Client.builder()
   *     .region(Region.EU_WEST_1)
   *     .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())) // the store policy retries
   *     .build();
   * BlobStore store = S3BlobStore.builder().bucket("my-bucket").prefix("snapshots").client(client).build();
   * }</pre>
   */
  public static final class Builder extends BlobStoreBuilder<Builder> {
    private String bucket;
    private String prefix = "";
    private S3Client client;
    private AwsCredentialsProvider credentialsProvider;

    private Builder() {
      super("s3");
    }

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

    /**
     * Sets a setting by its name, as in the URI query ({@link S3Settings}); the value is parsed, and the name
     * checked, by {@link #build()}.
     *
     * @throws IllegalArgumentException if it is a store policy setting
     */
    @Override
    public Builder setting(String name, String value) {
      return super.setting(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    }

    /**
     * The application's own client, which the store uses as it is and never closes (close it after the store). The
     * settings that configure a client ({@value S3Settings#REGION}, {@value S3Settings#ENDPOINT},
     * {@value S3Settings#PATH_STYLE_ACCESS}, the credentials, the timeouts and {@value S3Settings#MAX_CONNECTIONS})
     * are then refused, and so is {@link #credentialsProvider(AwsCredentialsProvider)}: configure the client instead.
     *
     * <p>Retries belong to the store policy ({@link dev.permafrost.blob.StorePolicy}), so the client should make one
     * attempt per request ({@code .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))});
     * otherwise the policy's attempts and the SDK's multiply. A stream closed before its end aborts its request only
     * if the client's HTTP client can abort (the Apache ones can).
     */
    public Builder client(S3Client client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * The credentials of the client the store builds, from the application's provider (e.g. an STS or SSO
     * provider), which the store never closes. The credentials settings ({@value S3Settings#ACCESS_KEY},
     * {@value S3Settings#SECRET_KEY}, {@value S3Settings#SESSION_TOKEN}, {@value S3Settings#PROFILE}) are then
     * refused.
     */
    public Builder credentialsProvider(AwsCredentialsProvider credentialsProvider) {
      this.credentialsProvider = Objects.requireNonNull(credentialsProvider, "credentialsProvider");
      return this;
    }

    /** {@value S3Settings#REGION}. */
    public Builder region(String region) {
      return setting(S3Settings.REGION, region);
    }

    /** {@value S3Settings#ENDPOINT}: e.g. {@code http://127.0.0.1:9000} for MinIO. */
    public Builder endpoint(String endpoint) {
      return setting(S3Settings.ENDPOINT, endpoint);
    }

    /** {@value S3Settings#PATH_STYLE_ACCESS}. */
    public Builder pathStyleAccess(boolean pathStyle) {
      return setting(S3Settings.PATH_STYLE_ACCESS, Boolean.toString(pathStyle));
    }

    /** {@value S3Settings#ACCESS_KEY} and {@value S3Settings#SECRET_KEY}. */
    public Builder credentials(String accessKey, String secretKey) {
      return setting(S3Settings.ACCESS_KEY, accessKey).setting(S3Settings.SECRET_KEY, secretKey);
    }

    /**
     * Temporary credentials: {@value S3Settings#ACCESS_KEY}, {@value S3Settings#SECRET_KEY} and
     * {@value S3Settings#SESSION_TOKEN}.
     */
    public Builder credentials(String accessKey, String secretKey, String sessionToken) {
      return credentials(accessKey, secretKey).setting(S3Settings.SESSION_TOKEN, sessionToken);
    }

    /** {@value S3Settings#PROFILE}: a named profile of the AWS config and shared credentials files. */
    public Builder profile(String profile) {
      return setting(S3Settings.PROFILE, profile);
    }

    /** {@value S3Settings#CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration timeout) {
      return setting(S3Settings.CONNECT_TIMEOUT, timeout);
    }

    /** {@value S3Settings#READ_TIMEOUT}. */
    public Builder readTimeout(Duration timeout) {
      return setting(S3Settings.READ_TIMEOUT, timeout);
    }

    /** {@value S3Settings#MAX_CONNECTIONS}. */
    public Builder maxConnections(int connections) {
      return setting(S3Settings.MAX_CONNECTIONS, Integer.toString(connections));
    }

    /** {@value S3Settings#SINGLE_UPLOAD_THRESHOLD}, in bytes: larger blobs are multipart uploads. */
    public Builder singleUploadThreshold(long bytes) {
      return setting(S3Settings.SINGLE_UPLOAD_THRESHOLD, Long.toString(bytes));
    }

    /** {@value S3Settings#PART_SIZE}, in bytes. */
    public Builder partSize(long bytes) {
      return setting(S3Settings.PART_SIZE, Long.toString(bytes));
    }

    /** {@value S3Settings#LIST_PAGE_SIZE}. */
    public Builder listPageSize(int keys) {
      return setting(S3Settings.LIST_PAGE_SIZE, Integer.toString(keys));
    }

    /**
     * Creates the store (no request is sent yet; {@link dev.permafrost.blob.BlobStoreVerifier} checks access).
     *
     * @throws IllegalArgumentException for a missing bucket, an unknown setting, a malformed value, or settings that
     *     contradict each other or the client or credentials provider given
     */
    public S3BlobStore build() {
      return new S3BlobStore(bucket, prefix, storeSettings(), client, credentialsProvider);
    }

    @Override
    public String toString() {
      return "S3BlobStore.Builder(s3://" + bucket + "/" + prefix + ", settings " + storeSettings().values().keySet()
          + (client != null ? ", the application's S3Client" : "")
          + (credentialsProvider != null ? ", the application's AwsCredentialsProvider" : "") + ")";
    }
  }
}
