/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.net.Inet4Address;
import java.net.InetAddress;
import org.apache.lucene.document.InetAddressPoint;
import org.apache.lucene.util.BytesRef;

/**
 * Prints an {@code ip} field's value as the engines do: an IPv4 address (an IPv4-mapped IPv6 one too) dotted, an IPv6
 * address in RFC 5952's canonical text (lower-case hexadecimal without leading zeros, the longest run of two or more
 * zero groups, the first of equals, as {@code ::}): {@code 2001:db8::7c5}, {@code ::1}, {@code ::}.
 */
public final class IpPrinter {
  private IpPrinter() {}

  /** The address of a doc value or point: 16 bytes, as {@link InetAddressPoint} encodes it. */
  public static String print(BytesRef encoded) {
    byte[] bytes = new byte[encoded.length];
    System.arraycopy(encoded.bytes, encoded.offset, bytes, 0, encoded.length);
    return print(InetAddressPoint.decode(bytes));
  }

  /** An address as the engines print it. */
  public static String print(InetAddress address) {
    if (address instanceof Inet4Address) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    assert b.length == 16 : b.length;
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not shortened
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int start = i;
      while (i < 8 && groups[i] == 0) {
        i++;
      }
      if (i - start > bestLength) {
        bestStart = start;
        bestLength = i - start;
      }
    }
    StringBuilder out = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }
}
