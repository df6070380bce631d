/*
 * remote_quote: quoting for the POSIX shell that runs a remote command
 * (sshd hands the command line to the account's login shell). Pure string
 * work, no libssh: unit-tested on its own (tests/unit/test_remote_quote.c).
 * remote_ssh.h includes this header, so users of remote_exec have it.
 */
#ifndef REMOTE_QUOTE_H
#define REMOTE_QUOTE_H

/*
 * Quotes s for a POSIX shell so that it stays one word and nothing in it is
 * interpreted ("a b" -> 'a b', "it's" -> 'it'\''s', "" -> ''). Strings of
 * only [A-Za-z0-9_@%+:,./-] are returned as they are ("=" is not among
 * them: zsh expands a leading one). Caller frees; NULL on out of memory or
 * when s is NULL.
 */
char *remote_quote(const char *s);

#endif
