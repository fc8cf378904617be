/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.util.Arrays;
import java.util.Random;
import org.apache.lucene.codecs.compressing.Decompressor;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * The zstd chunks of Elasticsearch's stored fields (a VInt length and one frame) decompress to exactly the bytes
 * compressed, whatever part of the chunk is asked for; a damaged frame header or a wrong length fails as corruption.
 */
class ZstdStoredFieldsFormatTest {
  private static Decompressor decompressor() {
    return ZstdStoredFieldsFormat.CHUNKS.newDecompressor();
  }

  private static byte[] chunk(byte[] original, int level) throws Exception {
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    if (original.length > 0) {
      byte[] frame = Zstd.compress(original, level);
      out.writeVInt(frame.length);
      out.writeBytes(frame, frame.length);
    }
    return out.toArrayCopy();
  }

  @Test
  void everyPartOfRandomChunksDecompressesToTheBytesCompressed() throws Exception {
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    Decompressor d = decompressor();
    BytesRef bytes = new BytesRef();
    for (int round = 0; round < 300; round++) {
      int length = random.nextInt(5) == 0 ? random.nextInt(16) : random.nextInt(300_000);
      byte[] original = new byte[length];
      for (int i = 0; i < length; i++) { // compressible: few distinct bytes in runs
        original[i] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : 'a' + (i / 7) % 5);
      }
      byte[] chunk = chunk(original, random.nextBoolean() ? 0 : 3);
      int offset = length == 0 ? 0 : random.nextInt(length + 1);
      int part = random.nextInt(length - offset + 1);
      ByteArrayDataInput in = new ByteArrayDataInput(chunk);
      d.decompress(in, length, offset, part, bytes);
      assertEquals(part, bytes.length, "seed " + seed);
      assertArrayEquals(Arrays.copyOfRange(original, offset, offset + part),
          Arrays.copyOfRange(bytes.bytes, bytes.offset, bytes.offset + bytes.length), "seed " + seed);
      assertEquals(chunk.length, in.getPosition(), "the chunk is read whole, seed " + seed);
    }
  }

  @Test
  void aDamagedFrameOrAWrongLengthIsCorruption() throws Exception {
    byte[] original = "the quick brown fox jumps over the lazy dog ".repeat(200).getBytes();
    byte[] chunk = chunk(original, 3);
    // Elasticsearch's frames carry no checksum, so damage inside a frame's body may decompress (as in Lucene's own
    // LZ4 chunks; the file's checksum is what catches it); a damaged frame header and a length that differs from
    // the container's are caught here
    byte[] damaged = chunk.clone();
    damaged[2] ^= 0x5a; // the frame's magic number, after the two bytes of its VInt length
    Decompressor d = decompressor();
    CorruptIndexException e = assertThrows(CorruptIndexException.class,
        () -> d.decompress(new ByteArrayDataInput(damaged), original.length, 0, original.length, new BytesRef()));
    assertTrue(e.getMessage().contains("zstd"), e.getMessage());
    assertThrows(CorruptIndexException.class,
        () -> d.decompress(new ByteArrayDataInput(chunk), original.length + 1, 0, 10, new BytesRef()));
  }
}
