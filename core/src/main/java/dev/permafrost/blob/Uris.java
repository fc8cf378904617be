/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.net.URI;

/** How a repository URI is shown in messages: never with what may hold secrets. */
final class Uris {
  private Uris() {}

  /** The URI without its query and user info, which may hold secrets. */
  static String redact(URI uri) {
    StringBuilder sb = new StringBuilder();
    if (uri.getScheme() != null) {
      sb.append(uri.getScheme()).append(':');
    }
    if (uri.getRawAuthority() != null || uri.getHost() != null) {
      sb.append("//");
      if (uri.getHost() != null) {
        sb.append(uri.getHost());
        if (uri.getPort() >= 0) {
          sb.append(':').append(uri.getPort());
        }
      } else {
        String authority = uri.getRawAuthority();
        int at = authority.lastIndexOf('@');
        sb.append(at >= 0 ? authority.substring(at + 1) : authority);
      }
    }
    if (uri.getRawPath() != null) {
      sb.append(uri.getRawPath());
    } else if (uri.getRawSchemeSpecificPart() != null && uri.getRawAuthority() == null) {
      String ssp = uri.getRawSchemeSpecificPart();
      int q = ssp.indexOf('?');
      sb.append(q >= 0 ? ssp.substring(0, q) : ssp);
    }
    return sb.toString();
  }}
