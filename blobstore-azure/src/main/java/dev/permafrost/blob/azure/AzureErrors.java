/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreException;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Turns the SDK's exceptions into {@link BlobStoreException}s that say what went wrong and what to check. The
 * store's description (container, prefix, account, endpoint) is appended by {@link BlobStoreException}; the
 * service's own error text is not copied, because authentication errors echo request signatures.
 *
 * <p>Every exception is classified for the store policy's retries ({@link BlobStoreException#isRetryable()}):
 * server errors (5xx), throttling (429, {@code ServerBusy}), refused, reset or cut-off connections, connect and
 * read time-outs and TLS failures are retryable; missing blobs and containers, rejected credentials (401, 403),
 * invalid requests (400), failed conditions (412: the blob changed under an ETag-pinned read), invalid ranges
 * (416), unresolvable hosts and anything not recognised are not.
 */
final class AzureErrors {
  private final String description;
  private final String account;
  private final String container;
  /** The blob service endpoint, without query. */
  private final String endpoint;

  /** The errors of the store that {@code description} describes, on {@code container} of {@code account}. */
  AzureErrors(String description, String account, String container, String endpoint) {
    this.description = description;
    this.account = account;
    this.container = container;
    this.endpoint = endpoint;
  }

  /** The store's description, as its messages name it. */
  String describe() {
    return description;
  }

  BlobStoreException translate(String blobName, String action, RuntimeException e) {
    String where = description;
    if (e instanceof BlobStorageException se) {
      return fromService(blobName, action, se);
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof NoRouteToHostException) {
        // Refused, unreachable or timed out while connecting (Netty's ConnectTimeoutException is a ConnectException).
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: cannot connect to endpoint " + endpoint + " (" + t.getClass().getSimpleName() + ": "
                + t.getMessage() + "); check the 'endpoint' or 'account' setting, that the service (or Azurite) is"
                + " running and reachable from this machine, and any firewall or proxy in between",
            e,
            true);
      }
      if ((t instanceof UnknownHostException || t instanceof UnresolvedAddressException) && isIpLiteral(endpoint)) {
        // Netty reports some literal addresses it cannot use (e.g. single-digit ports) as unknown hosts.
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: cannot connect to endpoint " + endpoint + " (" + t
                + "); check the 'endpoint' setting's address and port",
            e);
      }
      if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: cannot resolve the host of endpoint " + endpoint
                + "; check the 'account' or 'endpoint' setting and DNS (a private endpoint needs its private DNS zone)",
            e);
      }
      if (t instanceof SSLException) {
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: TLS with endpoint " + endpoint + " failed (" + t.getMessage()
                + "); check that the endpoint's scheme (http or https) is right and that its certificate is trusted",
            e,
            true);
      }
      if (t instanceof TimeoutException || t.getClass().getName().toLowerCase(Locale.ROOT).contains("timeout")) {
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: timed out talking to endpoint " + endpoint
                + "; check the network, or raise 'connect_timeout' / 'read_timeout'",
            e,
            true);
      }
      if (isConnectionLost(t)) {
        return new BlobStoreException(
            where,
            blobName,
            action + " failed: the connection to endpoint " + endpoint + " was closed or reset (" + t + ")",
            e,
            true);
      }
    }
    return new BlobStoreException(where, blobName, action + " failed: " + e, e);
  }

  /**
   * A connection that broke under a request: reset, closed before or during the response (Reactor Netty's {@code
   * PrematureCloseException}, {@code AbortedException}), a broken pipe. The same request may pass on a new
   * connection.
   */
  private static boolean isConnectionLost(Throwable t) {
    if (t instanceof SocketException || t instanceof EOFException || t instanceof ClosedChannelException) {
      return true;
    }
    String name = t.getClass().getName();
    if (name.endsWith(".PrematureCloseException") || name.endsWith(".AbortedException")) {
      return true;
    }
    // Netty's native transport reports a reset as a plain IOException (Errors.NativeIoException).
    String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
    return t instanceof IOException && (message.contains("connection reset") || message.contains("broken pipe"));
  }

  private BlobStoreException fromService(String blobName, String action, BlobStorageException e) {
    String where = description;
    BlobErrorCode code = e.getErrorCode();
    int status = e.getStatusCode();
    String codeText = "HTTP " + status + (code == null ? "" : ", " + code);
    if (BlobErrorCode.CONTAINER_NOT_FOUND.equals(code)) {
      return new BlobStoreException(
          where,
          blobName,
          action + " failed: container '" + container + "' does not exist in account '" + account
              + "' at endpoint " + endpoint + " (" + codeText
              + "); check the container name in the URI, or create the container",
          e);
    }
    if (blobName != null && (BlobErrorCode.BLOB_NOT_FOUND.equals(code) || (status == 404 && code == null))) {
      return new BlobNotFoundException(where, blobName, e);
    }
    if (status == 401
        || BlobErrorCode.AUTHENTICATION_FAILED.equals(code)
        || BlobErrorCode.NO_AUTHENTICATION_INFORMATION.equals(code)
        || BlobErrorCode.INVALID_AUTHENTICATION_INFO.equals(code)) {
      return new BlobStoreException(
          where,
          blobName,
          action + " failed: authentication failed for account '" + account + "' at endpoint "
              + endpoint + ", container '" + container + "' (" + codeText
              + "); the service rejected the credential: check 'account_key', 'sas_token' or 'connection_string'"
              + " (right account, not expired), or the default credential's identity, and this machine's clock",
          e);
    }
    if (status == 403) {
      return new BlobStoreException(
          where,
          blobName,
          action + " failed: access denied for account '" + account + "' at endpoint " + endpoint
              + ", container '" + container + "' (" + codeText
              + "); the credential was rejected or lacks permission: check 'account_key' / 'sas_token' /"
              + " 'connection_string', the SAS permissions (read, write, delete, list) and expiry, the identity's"
              + " role (e.g. Storage Blob Data Contributor), and the storage account's firewall",
          e);
    }
    if (BlobErrorCode.CONDITION_NOT_MET.equals(code) || status == 412) {
      return new BlobStoreException(
          where, blobName, action + " failed: the blob was replaced while it was being read (" + codeText + ")", e);
    }
    if (status == 404) {
      return new BlobStoreException(where, blobName, action + " failed: not found (" + codeText + ")", e);
    }
    if (status == 429 || BlobErrorCode.SERVER_BUSY.equals(code)) {
      return new BlobStoreException(
          where,
          blobName,
          action + " failed: the service is throttling requests (" + codeText + ") for account '" + account
              + "'; the account's request or bandwidth limits are exceeded (lower 'max_concurrent_requests' or"
              + " 'max_bytes_per_sec')",
          e,
          true);
    }
    boolean retryable = status >= 500 || status == 408 || BlobErrorCode.OPERATION_TIMED_OUT.equals(code);
    return new BlobStoreException(
        where, blobName, action + " failed (" + codeText + ")" + firstLine(e.getServiceMessage()), e, retryable);
  }

  private static boolean isIpLiteral(String endpoint) {
    try {
      String host = URI.create(endpoint).getHost();
      return host != null && (host.startsWith("[") || host.matches("[0-9.]+"));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String firstLine(String serviceMessage) {
    if (serviceMessage == null || serviceMessage.isBlank()) {
      return "";
    }
    String line = serviceMessage.strip();
    int nl = line.indexOf('\n');
    return ": " + (nl >= 0 ? line.substring(0, nl).strip() : line);
  }
}
