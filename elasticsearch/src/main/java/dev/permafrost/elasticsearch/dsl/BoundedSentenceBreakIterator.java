/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.text.BreakIterator;
import java.text.CharacterIterator;
import java.util.Locale;

/**
 * Fragment boundaries as the node's unified highlighter draws them with its {@code sentence} boundary scanner and a
 * {@code fragment_size}: a fragment starts at the start of the sentence holding the match, or, if the match lies more
 * than {@code fragment_size} past it, at the word boundary before {@code fragment_size} characters ahead of the match;
 * it takes whole sentences while they fit within {@code fragment_size} of its start, and a sentence that does not fit
 * (the first one, or the rest of it) is cut at the first word boundary after {@code fragment_size}, never before the
 * match. Only the two calls Lucene's {@code FieldHighlighter} makes are bounded ({@link #preceding} then
 * {@link #following}, for each new fragment); the others walk sentences.
 */
final class BoundedSentenceBreakIterator extends BreakIterator {
  private final BreakIterator sentences = BreakIterator.getSentenceInstance(Locale.ROOT);
  private final BreakIterator words = BreakIterator.getWordInstance(Locale.ROOT);
  private final int fragmentSize;
  /** Where the fragment {@link #preceding} began starts. */
  private int windowStart;
  private int current;
  private int begin;
  private int length;

  BoundedSentenceBreakIterator(int fragmentSize) {
    assert fragmentSize > 0 : fragmentSize;
    this.fragmentSize = fragmentSize;
  }

  @Override
  public int preceding(int offset) {
    int start = sentences.preceding(offset);
    if (start == DONE) {
      start = begin;
    }
    if ((long) offset - start > fragmentSize) {
      int word = words.preceding(offset - fragmentSize);
      start = word == DONE ? start : Math.max(start, word);
    }
    windowStart = start;
    current = start;
    return start;
  }

  @Override
  public int following(int offset) {
    int end = sentences.following(offset);
    if (end == DONE) {
      end = length;
    }
    if ((long) end - windowStart > fragmentSize) {
      int cut = words.following(Math.min(length - 1, Math.max((int) Math.min(Integer.MAX_VALUE, (long) windowStart + fragmentSize), offset)));
      end = cut == DONE ? length : Math.min(end, cut);
    } else {
      while (end < length) {
        int next = sentences.following(end);
        if (next == DONE || (long) next - windowStart > fragmentSize) {
          break;
        }
        end = next;
      }
    }
    current = end;
    return end;
  }

  @Override
  public int first() {
    return current = sentences.first();
  }

  @Override
  public int last() {
    return current = sentences.last();
  }

  @Override
  public int next(int n) {
    return current = sentences.next(n);
  }

  @Override
  public int next() {
    return current = sentences.next();
  }

  @Override
  public int previous() {
    return current = sentences.previous();
  }

  @Override
  public int current() {
    return current;
  }

  @Override
  public CharacterIterator getText() {
    return sentences.getText();
  }

  @Override
  public void setText(CharacterIterator text) {
    sentences.setText(text);
    words.setText((CharacterIterator) text.clone());
    begin = text.getBeginIndex();
    length = text.getEndIndex();
    windowStart = begin;
    current = text.getBeginIndex();
  }
}
