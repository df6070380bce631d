/*
 * remote_match: the wildcard patterns of ssh_config ("Host", "Match
 * host") and known_hosts host fields: '*' any run of characters (none
 * included), '?' any one character, every other byte itself (compared
 * exactly: callers lower the case where OpenSSH does). OpenSSH's
 * match_pattern (match.c) means the same, but tries each '*' by
 * recursion, which takes exponential time: ctl read the known_hosts line
 * "[******...gpu?]:*" (some 90 stars, found by fuzz/fuzz_knownhosts)
 * without end.
 */
#ifndef REMOTE_MATCH_H
#define REMOTE_MATCH_H

/* Whether s matches pattern p (both NUL-terminated). At most
 * strlen(s) * strlen(p) steps: after a mismatch only the last '*' seen
 * takes one more character (a match found through an earlier '*' is found
 * through the last one too). */
int remote_match_pattern(const char *s, const char *p);

#endif
