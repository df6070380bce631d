/*
 * Where results/ and hosts/ are: the one rule every command follows
 * (paths.c says it in full).
 */
#ifndef BF_PATHS_H
#define BF_PATHS_H

/* Where results/ and hosts/ are (paths.c has the rule): given (a
 * --results or --hosts-dir value) when not NULL, else
 * $BENCHFLEET_RESULTS_DIR / $BENCHFLEET_HOSTS_DIR, else ./results
 * (./hosts) when it exists, else the benchfleet checkout's (a checkout
 * build) or the XDG directory (an installed ctl:
 * ~/.local/share/benchfleet/results, ~/.config/benchfleet/hosts), else
 * ./results (./hosts). The strings live until ctl exits. ctl_hosts_dir
 * sets *given_by (when not NULL) to what chose the directory when the
 * user did ("--hosts-dir", "BENCHFLEET_HOSTS_DIR"), else to NULL: a
 * directory the user chose must exist (inventory_load). */
const char *ctl_results_dir(const char *given);
const char *ctl_hosts_dir(const char *given, const char **given_by);
/* The benchfleet checkout that ctl falls back to (at or above the current
 * directory, else the one ctl was built from), or NULL. */
const char *ctl_checkout_dir(void);
/* 1 when this ctl runs from the build tree it was built in
 * (BF_BINARY_DIR/bin, compared after realpath), 0 when it is installed
 * (or copied) anywhere else. */
int ctl_is_checkout_build(void);
/* Before ctl run makes dir (archive_create makes only dir itself): when
 * dir is the XDG results directory ctl_results_dir chose for an installed
 * ctl, its missing parents are made, 0700 (the XDG Base Directory
 * Specification's mode for a directory it creates). Any other dir is left
 * alone; a parent that cannot be made is left for archive_create to
 * report. */
void ctl_results_dir_prepare(const char *dir);

/* The shipped reference file (docs/verdict.md): $BENCHFLEET_REFERENCES
 * when set, else the checkout's data/references.json for a checkout
 * build, else DATADIR/benchfleet/references.json (installed with ctl).
 * Static; may not exist. */
const char *ctl_references_file(void);
/* The user's reference folder: $XDG_CONFIG_HOME/benchfleet/references
 * (default ~/.config/benchfleet/references); NULL when neither variable
 * gives an absolute path. Static. */
const char *ctl_config_references_dir(void);

#endif
