/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.ByteArrayDataInput;

/**
 * The entry table of a Lucene compound file ({@code .cfe}, Lucene90CompoundFormat's, which the engines' codecs keep):
 * which file of the segment lies where in its data file ({@code .cfs}). Written from Lucene's format: an index header
 * (magic, codec name, version, the segment's 16-byte id, a suffix), a VInt count, then per entry its name without the
 * segment's ({@code _Lucene90_0.dvd}), its start and its length (two longs), then a footer.
 *
 * <p>Parsing checks nothing of the header and footer: a caller that did not make the bytes verifies them first
 * (their CRC32 against the footer's and the snapshot's records). A table whose entries do not end exactly where its
 * footer begins is refused with an {@link IOException}.
 */
final class CompoundEntries {
  private CompoundEntries() {}

  /** One entry: its file name without the segment's, and where its bytes are in the compound data file. */
  record Entry(String suffix, long start, long length) {
    /** The entry's file name in segment {@code segment} ({@code _3}). */
    String fileName(String segment) {
      return segment + suffix;
    }
  }

  /** The entries of the table {@code table} (the whole {@code .cfe}, footer included), in the order it lists them. */
  static List<Entry> parse(byte[] table) throws IOException {
    int end = table.length - CodecUtil.footerLength();
    if (end < 0) {
      throw new IOException("the table is " + table.length + " bytes, shorter than a footer");
    }
    // ByteArrayDataInput reads past its length (up to the array's end) unchecked: the footer is cut off explicitly
    ByteArrayDataInput in = new ByteArrayDataInput(Arrays.copyOf(table, end));
    List<Entry> entries = new ArrayList<>();
    try {
      CodecUtil.readBEInt(in); // the magic
      in.readString(); // the codec's name
      CodecUtil.readBEInt(in); // its version
      in.skipBytes(16); // the segment's id
      in.skipBytes(in.readByte() & 0xff); // the suffix
      int count = in.readVInt();
      if (count < 0) {
        throw new IOException("the table lists " + count + " entries");
      }
      for (int n = 0; n < count; n++) {
        entries.add(new Entry(in.readString(), in.readLong(), in.readLong()));
      }
    } catch (IndexOutOfBoundsException e) {
      throw new EOFException("the table's " + end + " bytes before its footer end inside its header or entry "
          + entries.size());
    }
    if (in.getPosition() != end) {
      throw new IOException("the table has " + (end - in.getPosition()) + " bytes between its last entry ("
          + entries.size() + ") and its footer");
    }
    return entries;
  }
}
