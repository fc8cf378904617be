/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static dev.permafrost.blob.s3.S3Settings.ACCESS_KEY;
import static dev.permafrost.blob.s3.S3Settings.CONNECT_TIMEOUT;
import static dev.permafrost.blob.s3.S3Settings.ENDPOINT;
import static dev.permafrost.blob.s3.S3Settings.PROFILE;
import static dev.permafrost.blob.s3.S3Settings.READ_TIMEOUT;
import static dev.permafrost.blob.s3.S3Settings.REGION;
import static dev.permafrost.blob.s3.S3Settings.SECRET_KEY;
import static dev.permafrost.blob.s3.S3Settings.SESSION_TOKEN;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.Durations;
import dev.permafrost.blob.s3.S3Settings.CredentialsSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Turns the AWS SDK's exceptions into {@link BlobStoreException}s that say what is wrong and what to check, and
 * whether sending the same request again may pass ({@link BlobStoreException#isRetryable()}):
 *
 * <ul>
 *   <li>retryable: HTTP 5xx, 408, 429 and the throttling and time-out codes ({@code SlowDown}, {@code Throttling},
 *       {@code RequestTimeout}...), {@code RequestTimeTooSkewed} (the SDK corrects its clock for the next
 *       request), a host that does not resolve, a connection refused, reset or timed out, socket time-outs, TLS
 *       errors and responses cut short;
 *   <li>not retryable: a missing blob ({@link BlobNotFoundException}) or bucket, 401/403 (unknown access key, wrong
 *       secret key, invalid or expired session token, access denied), a bucket in another region, 400, 412, 416 and
 *       every other 4xx, missing credentials, and an interrupted thread.
 * </ul>
 *
 * <p>The store's description (backend, bucket, prefix, endpoint, region) is part of every message; credentials,
 * session tokens and profile names never are.
 */
final class S3Errors {
  /** Error codes of throttling (whatever the status): worth another attempt after a back-off. */
  static final Set<String> THROTTLING_ERROR_CODES =
      Set.of("SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded", "BandwidthLimitExceeded",
          "TooManyRequestsException", "RequestThrottled", "RequestThrottledException");
  /** Other error codes, beyond 5xx and 408, that a second attempt may pass (S3 can send them with a 200 or 400). */
  static final Set<String> TRANSIENT_ERROR_CODES =
      Set.of("InternalError", "ServiceUnavailable", "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete");
  /** Error codes of a session token that is malformed, unknown or expired. */
  static final Set<String> SESSION_TOKEN_ERROR_CODES =
      Set.of("InvalidToken", "InvalidTokenId", "ExpiredToken", "TokenRefreshRequired");

  private final String description;
  private final String bucket;
  private final String region;
  /** The endpoint override without user info, or null for AWS's. */
  private final String endpoint;
  /** The store's own client's timeouts for messages, e.g. " (connect_timeout 10s, read_timeout 50s)", or "". */
  private final String timeouts;
  private final boolean clientGiven;
  private final CredentialsSource credentialsSource;
  /** Whether the bucket is missing (a HEAD of the bucket, once), to tell a missing bucket from a missing key. */
  private final BooleanSupplier bucketMissing;

  /**
   * @param connectTimeout the connect timeout of the client the store built, or null for the application's client
   * @param readTimeout its read timeout, or null
   */
  S3Errors(String description, String bucket, String region, String endpoint, Duration connectTimeout,
      Duration readTimeout, CredentialsSource credentialsSource, BooleanSupplier bucketMissing) {
    this.description = description;
    this.bucket = bucket;
    this.region = region;
    this.endpoint = endpoint;
    this.timeouts = connectTimeout == null
        ? ""
        : " (" + CONNECT_TIMEOUT + " " + Durations.formatSetting(connectTimeout) + ", " + READ_TIMEOUT + " " + Durations.formatSetting(readTimeout) + ")";
    this.clientGiven = credentialsSource == CredentialsSource.CLIENT;
    this.credentialsSource = credentialsSource;
    this.bucketMissing = bucketMissing;
  }

  /**
   * The {@link BlobStoreException} for an SDK failure of {@code action} ("read", "write (PUT of 10 bytes)", ...) on
   * {@code blobName} (null for a listing or a batch).
   */
  BlobStoreException translate(SdkException e, String blobName, String action) {
    if (e instanceof AwsServiceException ase) {
      return translateService(ase, blobName, action);
    }
    if (e instanceof SdkClientException && isCredentialsFailure(e)) {
      // Checked before the network causes: the provider chain's own failed lookups (instance metadata) are no
      // reason to blame the endpoint.
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: no AWS credentials found; " + noCredentialsHint(), e);
    }
    Throwable cause = rootCauseOfInterest(e);
    if (cause instanceof UnknownHostException) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: cannot resolve the host of " + endpointText() + " (" + cause.getMessage()
              + "); check " + (clientGiven ? "the endpoint and region of the S3Client given to the builder"
                  : "the '" + ENDPOINT + "' and '" + REGION + "' settings") + " and DNS", e, true);
    }
    if (cause instanceof ConnectException || cause instanceof NoRouteToHostException || isConnectTimeout(cause)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: cannot connect to " + endpointText() + " (" + cause.getMessage() + "); check "
              + (clientGiven ? "the endpoint of the S3Client given to the builder" : "the '" + ENDPOINT + "' setting")
              + " and that the server is running and reachable" + timeouts, e, true);
    }
    if (cause instanceof SocketTimeoutException) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: timed out waiting for " + endpointText() + timeouts
              + "; check that the server is healthy, or raise the timeouts", e, true);
    }
    return new BlobStoreException(description, blobName, "S3 " + action + " failed: " + e.getMessage(), e, isTransient(e));
  }

  private BlobStoreException translateService(AwsServiceException ase, String blobName, String action) {
    String code = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorCode();
    String serviceMessage = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorMessage();
    int status = ase.statusCode();
    String detail = " [S3 status " + status + (code == null ? "" : ", code " + code)
        + (serviceMessage == null ? "" : ": " + serviceMessage) + "]";
    if ("NoSuchBucket".equals(code) || ase instanceof NoSuchBucketException) {
      return noSuchBucket(blobName, action, detail, ase);
    }
    if ("NoSuchKey".equals(code) || ase instanceof NoSuchKeyException || (status == 404 && blobName != null && code == null)) {
      // A HEAD has no body, so a missing bucket looks like a missing key: tell them apart once.
      if (blobName != null && bucketMissing.getAsBoolean()) {
        return noSuchBucket(blobName, action, " [S3 status " + status + ", and HEAD of the bucket is 404 too]", ase);
      }
      return new BlobNotFoundException(description, blobName, ase);
    }
    if (ase.isThrottlingException() || status == 429 || isIn(THROTTLING_ERROR_CODES, code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: " + endpointText() + " is throttling requests (slow down)" + detail, ase, true);
    }
    if (status >= 500 || status == 408 || isIn(TRANSIENT_ERROR_CODES, code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: " + (status >= 500 ? "server error at " : "transient error at ") + endpointText()
              + detail, ase, true);
    }
    if (ase.isClockSkewException()) {
      // The SDK has corrected its clock offset from this response's Date: the next request is signed right.
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: the local clock is too far from the server's; check the clock (NTP)" + detail, ase, true);
    }
    if ("InvalidAccessKeyId".equals(code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: the access key id is not known to " + endpointText() + "; check "
              + credentialsHint(ACCESS_KEY) + detail, ase);
    }
    if ("SignatureDoesNotMatch".equals(code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: the request signature does not match, so the secret key is wrong for this access key;"
              + " check " + credentialsHint(SECRET_KEY) + detail, ase);
    }
    if (isIn(SESSION_TOKEN_ERROR_CODES, code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: the session token is invalid or has expired (temporary credentials expire: get"
              + " new ones); check " + credentialsHint(SESSION_TOKEN) + detail, ase);
    }
    if ("PermanentRedirect".equals(code) || "AuthorizationHeaderMalformed".equals(code) || status == 301) {
      String bucketRegion = ase.awsErrorDetails() == null || ase.awsErrorDetails().sdkHttpResponse() == null
          ? null
          : ase.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region").orElse(null);
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: bucket '" + bucket + "' is not in region " + region
              + (bucketRegion == null ? "" : " but in " + bucketRegion) + "; check "
              + (clientGiven ? "the region of the S3Client given to the builder" : "the '" + REGION + "' setting")
              + detail, ase);
    }
    if (status == 403 || status == 401 || "AccessDenied".equals(code)) {
      return new BlobStoreException(description, blobName,
          "S3 " + action + " failed: access denied to bucket '" + bucket + "' at " + endpointText()
              + (code == null ? " (the response has no error code, as for a HEAD, so the cause may be a wrong access key,"
                  + " a wrong secret key, an invalid session token or a missing permission)" : "")
              + "; check " + credentialsHint(null) + " and that they are allowed to use this bucket and prefix" + detail, ase);
    }
    // Any other 4xx (400, 412, 416...): the request itself is wrong, sending it again would not help.
    return new BlobStoreException(description, blobName, "S3 " + action + " failed" + detail, ase);
  }

  /** The failure of an I/O error while reading a response body at {@code offset} of the blob. */
  BlobStoreException readFailure(IOException e, String blobName, long offset) {
    return new BlobStoreException(description, blobName, "S3 read failed at offset " + offset + ": " + e, e, isTransient(e));
  }

  private BlobStoreException noSuchBucket(String blobName, String action, String detail, Throwable e) {
    return new BlobStoreException(description, blobName,
        "S3 " + action + " failed: bucket '" + bucket + "' does not exist at " + endpointText() + "; check the bucket name, "
            + (clientGiven ? "the endpoint and region of the S3Client given to the builder"
                : "the '" + ENDPOINT + "' and '" + REGION + "' settings")
            + ", or create the bucket" + detail, e);
  }

  /**
   * What to check for credentials the server refused; {@code setting} is the setting most likely at fault when the
   * credentials are settings ({@code access_key}, {@code secret_key}, {@code session_token}), or null for all of them.
   */
  private String credentialsHint(String setting) {
    return switch (credentialsSource) {
      case KEYS, SESSION -> setting != null
          ? "the '" + setting + "' setting"
          : "the credentials ('" + ACCESS_KEY + "' / '" + SECRET_KEY + "'"
              + (credentialsSource == CredentialsSource.SESSION ? " / '" + SESSION_TOKEN + "'" : "") + ")";
      case PROFILE -> "the credentials of the profile named by the '" + PROFILE + "' setting";
      case PROVIDER -> "the credentials of the AwsCredentialsProvider given to the builder";
      case CLIENT -> "the credentials of the S3Client given to the builder";
      case DEFAULT_CHAIN -> "the credentials the AWS default provider chain found (or give the '" + ACCESS_KEY + "' and '"
          + SECRET_KEY + "' settings)";
    };
  }

  private String noCredentialsHint() {
    return switch (credentialsSource) {
      case PROFILE -> "check the profile named by the '" + PROFILE + "' setting in the AWS config and shared"
          + " credentials files";
      case PROVIDER -> "the AwsCredentialsProvider given to the builder supplied none";
      case CLIENT -> "check the credentials provider of the S3Client given to the builder";
      default -> "give the '" + ACCESS_KEY + "' and '" + SECRET_KEY + "' settings or configure the AWS default provider"
          + " chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, or an instance or container role)";
    };
  }

  private String endpointText() {
    return endpoint == null ? "the AWS S3 endpoint of region " + region : "endpoint " + endpoint;
  }

  /** Whether a client-side failure is a credentials provider failing to supply credentials. */
  private static boolean isCredentialsFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.contains("Unable to load credentials") || message.contains("contained no credentials for profile")) {
        return true;
      }
    }
    return false;
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

  /** Whether a second attempt may pass a batch delete's per-key failure with this error code. */
  static boolean isTransientCode(String code) {
    return isIn(THROTTLING_ERROR_CODES, code) || isIn(TRANSIENT_ERROR_CODES, code);
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
}
