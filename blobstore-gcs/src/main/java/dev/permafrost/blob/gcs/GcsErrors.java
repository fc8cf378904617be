/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.google.cloud.BaseServiceException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/** Recognizes what went wrong in a failure of the Google SDK, and says it without leaking secrets. */
final class GcsErrors {
  private GcsErrors() {}

  /** What kind of failure an exception is. */
  enum Kind {
    NOT_FOUND,
    UNAUTHENTICATED,
    PERMISSION_DENIED,
    RANGE_NOT_SATISFIABLE,
    CREDENTIALS_UNUSABLE,
    CONNECTION_REFUSED,
    UNKNOWN_HOST,
    TIMEOUT,
    TLS,
    OTHER
  }

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
      if (c instanceof com.google.api.client.http.HttpResponseException he) {
        return he.getStatusCode();
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return 0;
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
    switch (httpCode(t)) {
      case 404:
        return Kind.NOT_FOUND;
      case 401:
        return Kind.UNAUTHENTICATED;
      case 403:
        return Kind.PERMISSION_DENIED;
      case 416:
        return Kind.RANGE_NOT_SATISFIABLE;
      default:
        break;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectException || c instanceof NoRouteToHostException) {
        return Kind.CONNECTION_REFUSED;
      }
      if (c instanceof UnknownHostException) {
        return Kind.UNKNOWN_HOST;
      }
      if (c instanceof SocketTimeoutException || c instanceof HttpTimeoutException) {
        return Kind.TIMEOUT;
      }
      if (c instanceof SSLException) {
        return Kind.TLS;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return Kind.OTHER;
  }

  /** Whether the failure is the thread being interrupted. */
  static boolean interrupted(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException
          || (c instanceof InterruptedIOException && !(c instanceof SocketTimeoutException))) {
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
