/* Strict parsing of numbers from command lines and files. */
#ifndef BF_PARSE_H
#define BF_PARSE_H

/* Parses s as a whole decimal integer (optional sign, no spaces, nothing
 * after it) in [min, max]. Returns 0 and sets *out, or -1 when s is empty,
 * not a number, has trailing characters, or is out of range (also when it
 * overflows a long). Unlike atoi, "12abc", "1.5" and "" are errors. */
int bf_parse_long(const char *s, long min, long max, long *out);

#endif
