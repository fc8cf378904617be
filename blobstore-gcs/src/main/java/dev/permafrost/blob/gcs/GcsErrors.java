/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.google.api.client.http.HttpResponseException;
import com.google.auth.Retryable;
import com.google.cloud.BaseServiceException;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreException;
import java.io.EOFException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Turns failures of the Google SDK into {@link BlobStoreException}s: recognizes what went wrong, whether sending the
 * request again may succeed ({@link BlobStoreException#isRetryable()}), and says it, with what to check, without
 * leaking secrets. One per store: its messages name the store, its bucket and endpoint.
 */
final class GcsErrors {
  private final String store;
  private final String bucket;
  private final String endpoint;
  private final GcsSettings settings;
  private final BooleanSupplier bucketExists;

  /**
   * @param store the store's description, which every message names
   * @param bucketExists whether the bucket exists (true when that cannot be told): GCS answers 404 both to a
   *     missing blob and to a missing bucket
   */
  GcsErrors(String store, String bucket, String endpoint, GcsSettings settings, BooleanSupplier bucketExists) {
    this.store = store;
    this.bucket = bucket;
    this.endpoint = endpoint;
    this.settings = settings;
    this.bucketExists = bucketExists;
  }

  /**
   * Maps a failure of the Google client to a {@link BlobStoreException} that says what is wrong and what to
   * check, and whether the request may succeed if sent again ({@link #retryable}). A failure that already is a
   * {@code BlobStoreException} is returned as it is.
   *
   * @param action what was being done, as in "GCS could not {@code action}"
   * @param notFoundMeansBlob whether a 404 may mean "no such blob" (reads, lengths) rather than "no such bucket"
   *     (writes, lists)
   * @throws BlobStoreException for a 404: a {@link BlobNotFoundException} or a missing bucket
   */
  BlobStoreException translate(Throwable e, String blobName, String action, boolean notFoundMeansBlob)
      throws BlobStoreException {
    if (e instanceof BlobStoreException bse) {
      return bse;
    }
    if (interrupted(e)) {
      Thread.currentThread().interrupt();
      InterruptedIOException ie = new InterruptedIOException("interrupted while trying to " + action + " in " + store);
      ie.initCause(e);
      return new BlobStoreException(store, blobName, "interrupted while trying to " + action, ie);
    }
    String what = "GCS could not " + action;
    Kind kind = classify(e);
    String message = switch (kind) {
      case NOT_FOUND -> {
        if (notFoundMeansBlob && blobName != null) {
          throw notFound(blobName, e);
        }
        if (!bucketExists.getAsBoolean()) {
          throw missingBucket(blobName, e);
        }
        yield what + ": not found (" + detail(e) + ")";
      }
      case UNAUTHENTICATED -> what + ": the endpoint " + endpoint + " rejected the credentials (HTTP 401"
          + " Unauthorized); check " + settings.credentialsHint();
      case PERMISSION_DENIED -> what + ": permission denied (HTTP 403 Forbidden) on bucket '" + bucket + "'; the"
          + " credentials are valid but lack a permission this store needs (storage.objects.get/list/create/delete,"
          + " e.g. the role roles/storage.objectAdmin), or the bucket belongs to another project or is"
          + " requester-pays (" + detail(e) + ")";
      case RATE_LIMITED -> what + ": GCS is throttling requests (" + detail(e) + "); lower the request"
          + " rate (the store policy's max_concurrent_requests and max_bytes_per_sec) or spread the load";
      case SERVER_ERROR -> what + ": the GCS endpoint " + endpoint + " answered with a server error ("
          + detail(e) + "); such failures are usually transient";
      case CREDENTIALS_UNUSABLE -> what + ": could not obtain an access token with the configured credentials;"
          + " check " + settings.credentialsHint() + " (" + e.getClass().getSimpleName() + ")";
      case CONNECTION_REFUSED -> what + ": cannot connect to the GCS endpoint " + endpoint + " (connection"
          + " refused); check " + settings.endpointHint() + ", that the server is running and that it is reachable from here";
      case CONNECTION_LOST -> what + ": the connection to the GCS endpoint " + endpoint + " was lost before the"
          + " response was complete (" + detail(e) + ")";
      case UNKNOWN_HOST -> what + ": the host of the GCS endpoint " + endpoint + " cannot be resolved; check "
          + settings.endpointHint() + " and DNS";
      case TIMEOUT -> what + ": timed out talking to the GCS endpoint " + endpoint + " " + settings.timeoutHint();
      case TLS -> what + ": TLS handshake with the GCS endpoint " + endpoint + " failed; check the endpoint's"
          + " scheme (http or https) and its certificate (" + detail(e) + ")";
      case RANGE_NOT_SATISFIABLE, OTHER -> what + ": " + detail(e);
    };
    return new BlobStoreException(store, blobName, message, e, retryable(kind, e));
  }

  /**
   * A missing blob, or, if the bucket is missing, that failure.
   *
   * @throws BlobStoreException if the bucket does not exist
   */
  BlobNotFoundException notFound(String blobName, Throwable cause) throws BlobStoreException {
    if (!bucketExists.getAsBoolean()) {
      throw missingBucket(blobName, cause);
    }
    return cause == null ? new BlobNotFoundException(store, blobName) : new BlobNotFoundException(store, blobName, cause);
  }

  /** The bucket does not exist (not retryable). */
  BlobStoreException missingBucket(String blobName, Throwable cause) {
    return new BlobStoreException(
        store, blobName,
        "GCS bucket '" + bucket + "' does not exist at " + endpoint
            + "; check the bucket name in the store URI, and that the project and endpoint are the intended ones",
        cause);
  }

  /**
   * What kind of failure an exception is, and whether the same request may succeed if sent again (see
   * {@link dev.permafrost.blob.BlobStoreException#isRetryable()}).
   */
  enum Kind {
    NOT_FOUND(false),
    UNAUTHENTICATED(false),
    PERMISSION_DENIED(false),
    /** HTTP 416; reads report it as a range past the end of the blob. */
    RANGE_NOT_SATISFIABLE(false),
    /** HTTP 429, or a 403 whose reason is a rate limit. */
    RATE_LIMITED(true),
    /** HTTP 5xx or 408. */
    SERVER_ERROR(true),
    /** Retryable only when the auth library says that the token request failed in a transient way. */
    CREDENTIALS_UNUSABLE(false),
    CONNECTION_REFUSED(true),
    /** Reset, closed or cut short: the connection ended before the response was complete. */
    CONNECTION_LOST(true),
    UNKNOWN_HOST(false),
    TIMEOUT(true),
    TLS(true),
    /** Any other status (400, 412, ...), an invalid argument, a response that cannot be parsed. */
    OTHER(false);

    private final boolean retryable;

    Kind(boolean retryable) {
      this.retryable = retryable;
    }
  }

  /** The reasons GCS gives, with a 403 or 429, for a request refused because of a rate limit. */
  private static final Set<String> RATE_LIMIT_REASONS = Set.of("rateLimitExceeded", "userRateLimitExceeded");

  private static final Pattern[] SECRETS = {
    Pattern.compile("(?is)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)"),
    Pattern.compile("(?i)(bearer\\s+)[^\\s\"',]+"),
    Pattern.compile("(?i)((?:access_token|refresh_token|id_token|upload_id|signature|x-goog-signature|sig|key|assertion|client_secret|private_key)[\"']?\\s*[=:]\\s*[\"']?)[^&\\s\"',}]+"),
  };

  /** The HTTP status of the first service exception in the cause chain, or 0. */
  static int httpCode(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException se && se.getCode() > 0) {
        return se.getCode();
      }
      if (c instanceof HttpResponseException he) {
        return he.getStatusCode();
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return 0;
  }

  /** Whether sending the request that failed with {@code t}, of kind {@code kind}, again may succeed. */
  static boolean retryable(Kind kind, Throwable t) {
    if (kind == Kind.CREDENTIALS_UNUSABLE) {
      // The auth library marks token-endpoint failures it deems transient (5xx, 408, 429, I/O errors).
      for (Throwable c = t; c != null; c = c.getCause()) {
        if (c instanceof Retryable r && r.isRetryable()) {
          return true;
        }
        if (c.getCause() == c) {
          break;
        }
      }
      return false;
    }
    return kind.retryable;
  }

  static Kind classify(Throwable t) {
    // Failures to obtain an access token come from the auth library, whatever the transport said underneath.
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getClass().getName().startsWith("com.google.auth.")) {
        return Kind.CREDENTIALS_UNUSABLE;
      }
      for (StackTraceElement frame : c.getStackTrace()) {
        if (frame.getClassName().startsWith("com.google.auth.oauth2.") && frame.getMethodName().startsWith("refresh")) {
          return Kind.CREDENTIALS_UNUSABLE;
        }
      }
      if (c.getCause() == c) {
        break;
      }
    }
    int code = httpCode(t);
    switch (code) {
      case 404:
        return Kind.NOT_FOUND;
      case 401:
        return Kind.UNAUTHENTICATED;
      case 403:
        return RATE_LIMIT_REASONS.contains(reason(t)) ? Kind.RATE_LIMITED : Kind.PERMISSION_DENIED;
      case 416:
        return Kind.RANGE_NOT_SATISFIABLE;
      case 429:
        return Kind.RATE_LIMITED;
      case 408:
        return Kind.SERVER_ERROR;
      default:
        if (code >= 500 && code <= 599) {
          return Kind.SERVER_ERROR;
        }
        if (code > 0) {
          return Kind.OTHER; // 400, 412, ...: the same request would fail the same way
        }
        break;
    }
    // First, anywhere in the chain: the JDK's HTTP client reports an unknown host as a ConnectException caused by
    // an UnresolvedAddressException.
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof UnknownHostException || c instanceof UnresolvedAddressException) {
        return Kind.UNKNOWN_HOST;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectException || c instanceof NoRouteToHostException) {
        return Kind.CONNECTION_REFUSED;
      }
      if (isTimeout(c) || c instanceof HttpTimeoutException) {
        return Kind.TIMEOUT;
      }
      if (c instanceof SSLException) {
        return Kind.TLS;
      }
      if (c instanceof SocketException || c instanceof EOFException) {
        return Kind.CONNECTION_LOST;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return Kind.OTHER;
  }

  /** A read that timed out: an {@link InterruptedIOException}, but no interruption. */
  private static boolean isTimeout(Throwable c) {
    return c instanceof SocketTimeoutException;
  }

  /** The reason of the first service exception in the cause chain, or null. */
  private static String reason(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException se && se.getReason() != null) {
        return se.getReason();
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  /**
   * Whether the failure is the thread being interrupted: an {@link InterruptedException} or a channel closed by
   * an interrupt in the cause chain, or an {@link InterruptedIOException} (not a time-out) while the thread's
   * interrupt flag is set.
   */
  static boolean interrupted(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException || c instanceof ClosedByInterruptException) {
        return true;
      }
      if (c instanceof InterruptedIOException && !isTimeout(c) && Thread.currentThread().isInterrupted()) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  /** A short, secret-free account of the failure: the innermost cause's type and its message. */
  static String detail(Throwable t) {
    Throwable first = t;
    // The service exception's own message is the server's explanation; prefer it when there is one.
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException se && se.getCode() > 0) {
        return "HTTP " + se.getCode() + ": " + sanitize(se.getMessage());
      }
      if (c.getCause() == c) {
        break;
      }
    }
    Throwable root = first;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? "" : ": " + sanitize(message));
  }

  /** Removes anything that looks like a key, token or signed-URL signature from a message. */
  static String sanitize(String message) {
    if (message == null) {
      return "";
    }
    String s = message;
    s = SECRETS[0].matcher(s).replaceAll("<redacted private key>");
    s = SECRETS[1].matcher(s).replaceAll("$1<redacted>");
    s = SECRETS[2].matcher(s).replaceAll("$1<redacted>");
    if (s.length() > 500) {
      s = s.substring(0, 500) + "...";
    }
    return s.replace('\n', ' ').replace('\r', ' ');
  }
}
