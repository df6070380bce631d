/* Reference files found and read; see references.h (references_load). */
#include "model/references.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "archive/archive_read.h"
#include "archive/paths.h"
#include "xmalloc.h"

static enum bf_err load_one(struct ref_set *s, const char *path, char *err,
			    size_t err_len)
{
	cJSON *root = NULL;
	enum bf_err e = archive_read_json(path, &root, err, err_len);

	if (e == BF_OK)
		e = references_parse_json(s, root, path, err, err_len);
	cJSON_Delete(root);
	return e;
}

static enum bf_err load_dir(struct ref_set *s, const char *dir, char *err,
			    size_t err_len)
{
	int n;
	char **files = archive_json_files(dir, &n);
	enum bf_err e = BF_OK;

	for (int i = 0; i < n && e == BF_OK; i++)
		e = load_one(s, files[i], err, err_len);
	bf_xfree_strv(files);
	return e;
}

enum bf_err references_load(struct ref_set *s, const char *hosts_dir,
			    int *shipped_missing, char *err, size_t err_len)
{
	const char *shipped = ctl_references_file();
	const char *xdg = ctl_config_references_dir();
	struct stat st;
	enum bf_err e = BF_OK;

	memset(s, 0, sizeof(*s));
	if (shipped_missing)
		*shipped_missing = 0;
	if (stat(shipped, &st) != 0 && errno == ENOENT) {
		if (shipped_missing)
			*shipped_missing = 1;
	} else {
		e = load_one(s, shipped, err, err_len);
	}
	if (e == BF_OK && hosts_dir) {
		char *dir = bf_xasprintf("%s/references", hosts_dir);

		e = load_dir(s, dir, err, err_len);
		free(dir);
	}
	if (e == BF_OK && xdg)
		e = load_dir(s, xdg, err, err_len);
	if (e != BF_OK) {
		references_free(s);
		return e;
	}
	references_finish(s);
	return BF_OK;
}
