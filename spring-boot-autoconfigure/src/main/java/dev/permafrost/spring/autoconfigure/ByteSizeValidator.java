/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.ByteSizes;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks a {@link ByteSize}: parses it as Permafrost will, so start-up fails on the property, not later. */
final class ByteSizeValidator implements ConstraintValidator<ByteSize, String> {
  private boolean share;
  private boolean zero;

  @Override
  public void initialize(ByteSize annotation) {
    share = annotation.share();
    zero = annotation.zero();
  }

  @Override
  public boolean isValid(String value, ConstraintValidatorContext context) {
    if (value == null) {
      return true;
    }
    String text = value.trim();
    String expected;
    if (share && text.endsWith("%")) {
      try {
        double percent = Double.parseDouble(text.substring(0, text.length() - 1));
        if (percent > 0 && percent <= 100) {
          return true;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      expected = "a share of the disk must be more than 0% and at most 100%";
    } else {
      try {
        long bytes = ByteSizes.parse(text);
        if (bytes > 0 || (zero && bytes == 0)) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // reported below
      }
      expected = "must be a size such as 512mb (b, kb, mb, gb)" + (zero ? ", or 0" : "")
          + (share ? ", or a share of the disk such as 80%" : "");
    }
    context.disableDefaultConstraintViolation();
    context.buildConstraintViolationWithTemplate(expected)
        .addConstraintViolation();
    return false;
  }
}
