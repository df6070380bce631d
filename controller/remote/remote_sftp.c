/*
 * remote_sftp: remote_upload and remote_mkdir_p over SFTP (see remote_ssh.h
 * for the contract). SFTP in libssh 0.10 is blocking only and ignores the
 * session timeout, so each SFTP request is bracketed by a watchdog thread
 * that shutdown()s the session's socket when the request runs past
 * timeout_s or the cancel flag is set. The watchdog touches nothing but that
 * file descriptor (never close(), never libssh: the session belongs to the
 * calling thread).
 */
#include "remote/remote_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* SFTP write size: 32 KiB is what OpenSSH's sftp client uses and fits in
 * one SSH packet; with TCP_NODELAY it runs at ~100 MB/s on loopback. */
#define REMOTE_SFTP_CHUNK_BYTES (32 * 1024)

/* ---- watchdog ----------------------------------------------------------- */

static void *watchdog_main(void *arg)
{
	struct watchdog *wd = arg;

	pthread_mutex_lock(&wd->mu);
	while (!wd->quit) {
		int64_t now, wake;
		struct timespec ts;

		if (!wd->armed) {
			pthread_cond_wait(&wd->cv, &wd->mu);
			continue;
		}
		now = remote_mono_ms();
		if (remote_flag_set(wd->cancel))
			wd->fired = WATCHDOG_CANCEL;
		else if (now >= wd->deadline_ms)
			wd->fired = WATCHDOG_TIMEOUT;
		if (wd->fired != WATCHDOG_NONE) {
			/* Unblocks the owner's read/write with an error; the fd
			 * stays open and is closed by the owner (ssh_free). */
			shutdown(wd->fd, SHUT_RDWR);
			wd->armed = 0;
			continue;
		}
		wake = wd->deadline_ms;
		if (wd->cancel && wake > now + REMOTE_SLICE_MS)
			wake = now + REMOTE_SLICE_MS;
		ts.tv_sec = wake / 1000;
		ts.tv_nsec = (wake % 1000) * 1000000;
		pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
	}
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

int remote_watchdog_init(struct watchdog *wd)
{
	pthread_condattr_t ca;

	if (pthread_mutex_init(&wd->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0) {
		pthread_mutex_destroy(&wd->mu);
		return -1;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&wd->cv, &ca) != 0) {
		pthread_condattr_destroy(&ca);
		pthread_mutex_destroy(&wd->mu);
		return -1;
	}
	pthread_condattr_destroy(&ca);
	wd->sync_ready = 1;
	return 0;
}

/* Starts guarding a blocking request on r's socket. Returns BF_OK, or an
 * error when the watchdog thread cannot be started (then nothing is
 * armed and the request must not be made). */
static enum bf_err watchdog_arm(struct remote *r, char *detail,
				size_t detail_len)
{
	struct watchdog *wd = &r->wd;
	int rc;

	pthread_mutex_lock(&wd->mu);
	if (!wd->running) {
		rc = pthread_create(&wd->thread, NULL, watchdog_main, wd);
		if (rc != 0) {
			pthread_mutex_unlock(&wd->mu);
			return bf_fail(detail, detail_len, BF_ERR_NOMEM,
				       "sftp on %s: cannot start watchdog: %s",
				       r->name, strerror(rc));
		}
		wd->running = 1;
	}
	wd->fd = r->fd;
	wd->cancel = r->cancel;
	wd->deadline_ms = remote_mono_ms() + (int64_t)r->timeout_s * 1000;
	wd->fired = WATCHDOG_NONE;
	wd->armed = 1;
	pthread_cond_signal(&wd->cv);
	pthread_mutex_unlock(&wd->mu);
	return BF_OK;
}

/* Stops guarding; returns whether (and why) the watchdog cut the socket. */
static enum watchdog_fired watchdog_disarm(struct remote *r)
{
	enum watchdog_fired fired;

	pthread_mutex_lock(&r->wd.mu);
	r->wd.armed = 0;
	fired = r->wd.fired;
	r->wd.fired = WATCHDOG_NONE;
	pthread_mutex_unlock(&r->wd.mu);
	return fired;
}

void remote_watchdog_stop(struct watchdog *wd)
{
	if (!wd->sync_ready)
		return;
	if (wd->running) {
		pthread_mutex_lock(&wd->mu);
		wd->quit = 1;
		pthread_cond_signal(&wd->cv);
		pthread_mutex_unlock(&wd->mu);
		pthread_join(wd->thread, NULL);
		wd->running = 0;
	}
	pthread_cond_destroy(&wd->cv);
	pthread_mutex_destroy(&wd->mu);
	wd->sync_ready = 0;
}

/* ---- SFTP --------------------------------------------------------------- */

/* Turns a watchdog firing into the error of the request it cut short. */
static enum bf_err sftp_cut(struct remote *r, enum watchdog_fired fired,
			    const char *what, const char *path, char *detail,
			    size_t detail_len)
{
	enum bf_err err = fired == WATCHDOG_CANCEL ? BF_ERR_INTERRUPTED :
			  BF_ERR_TIMEOUT;

	remote_mark_broken(r, err);
	if (err == BF_ERR_INTERRUPTED)
		return bf_fail(detail, detail_len, err, "%s %s:%s: interrupted",
			       what, r->name, path);
	return bf_fail(detail, detail_len, err,
		       "%s %s:%s: no answer within %d s", what, r->name, path,
		       r->timeout_s);
}

static enum bf_err sftp_error(struct remote *r, const char *what,
			      const char *path, char *detail,
			      size_t detail_len)
{
	int code = r->sftp ? sftp_get_error(r->sftp) : -1;

	if (!ssh_is_connected(r->session)) {
		remote_mark_broken(r, BF_ERR_CONNECT);
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "%s %s:%s: connection lost: %s", what, r->name,
			       path, ssh_get_error(r->session));
	}
	switch (code) {
	case SSH_FX_NO_SUCH_FILE:
	case SSH_FX_NO_SUCH_PATH:
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			       "%s %s:%s: no such file or directory", what,
			       r->name, path);
	case SSH_FX_PERMISSION_DENIED:
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: permission denied", what, r->name,
			       path);
	case SSH_FX_FILE_ALREADY_EXISTS:
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: file exists", what, r->name, path);
	default:
		return bf_fail(detail, detail_len, BF_ERR_IO, "%s %s:%s: %s",
			       what, r->name, path, ssh_get_error(r->session));
	}
}

/* Opens the SFTP subsystem on first use; leaves the session blocking (the
 * only mode SFTP supports in libssh 0.10). */
static enum bf_err sftp_ready(struct remote *r, const char *what,
			      const char *path, char *detail,
			      size_t detail_len)
{
	enum watchdog_fired fired;
	enum bf_err err;
	int64_t deadline_ms;
	int rc, attempt = 0;

	err = remote_check_usable(r, what, detail, detail_len);
	if (err != BF_OK)
		return err;
	if (remote_cancelled(r))
		return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			       "%s %s:%s: interrupted", what, r->name, path);
	ssh_set_blocking(r->session, 1);
	if (r->sftp)
		return BF_OK;
	deadline_ms = remote_mono_ms() + (int64_t)r->timeout_s * 1000;
again:
	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	r->sftp = sftp_new(r->session);
	rc = r->sftp ? sftp_init(r->sftp) : SSH_ERROR;
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE || rc != SSH_OK) {
		int code = r->sftp ? sftp_get_error(r->sftp) : 0;
		int refused = fired == WATCHDOG_NONE && !r->sftp &&
			      remote_channel_refused(r);

		if (r->sftp) {
			sftp_free(r->sftp);
			r->sftp = NULL;
		}
		/* The channel was refused, as a server with MaxSessions 1
		 * does until the exec channel closed just before is
		 * released: retry within timeout_s (remote_exec does the
		 * same). */
		if (refused) {
			err = remote_refusal_pause(r, attempt++, deadline_ms);
			if (err == BF_OK)
				goto again;
			if (err == BF_ERR_INTERRUPTED)
				return bf_fail(detail, detail_len, err,
					       "%s %s:%s: interrupted", what,
					       r->name, path);
		}
		if (fired != WATCHDOG_NONE)
			return sftp_cut(r, fired, what, path, detail,
					detail_len);
		if (!ssh_is_connected(r->session))
			return remote_lost(r, "sftp", detail, detail_len);
		/* libssh reads a shell's greeting as a packet length (as
		 * OpenSSH's sftp does, which names the cause the same). */
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "sftp on %s: server refused the subsystem "
			       "(sftp error %d): %s%s", r->name, code,
			       ssh_get_error(r->session),
			       strstr(ssh_get_error(r->session),
				      "packet size") ?
				       " (the remote shell produces output "
				       "for non-interactive sessions: make "
				       "its startup files print nothing)" :
				       "");
	}
	return BF_OK;
}

enum path_kind {
	PATH_MISSING = 0,
	PATH_DIR,
	PATH_OTHER,
};

/* What is at path (one SFTP stat). */
static enum bf_err sftp_kind(struct remote *r, const char *what,
			     const char *path, enum path_kind *kind,
			     char *detail, size_t detail_len)
{
	sftp_attributes a;
	enum watchdog_fired fired;
	enum bf_err err;
	int code;

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	a = sftp_stat(r->sftp, path);
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE) {
		sftp_attributes_free(a);
		return sftp_cut(r, fired, what, path, detail, detail_len);
	}
	if (a) {
		*kind = a->type == SSH_FILEXFER_TYPE_DIRECTORY ? PATH_DIR :
			PATH_OTHER;
		sftp_attributes_free(a);
		return BF_OK;
	}
	code = sftp_get_error(r->sftp);
	if (code == SSH_FX_NO_SUCH_FILE || code == SSH_FX_NO_SUCH_PATH) {
		*kind = PATH_MISSING;
		return BF_OK;
	}
	return sftp_error(r, what, path, detail, detail_len);
}

/* Makes one directory; an existing directory is fine. */
static enum bf_err sftp_mkdir_one(struct remote *r, const char *path,
				  int mode, char *detail, size_t detail_len)
{
	const char *what = "mkdir";
	enum watchdog_fired fired;
	enum path_kind kind = PATH_MISSING;
	enum bf_err err, mkdir_err;
	char why[512];
	int rc;

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	rc = sftp_mkdir(r->sftp, path, (mode_t)(mode & 07777));
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		return sftp_cut(r, fired, what, path, detail, detail_len);
	if (rc == 0)
		return BF_OK;
	/* OpenSSH reports an existing name as a generic failure: keep the
	 * mkdir error, then look at what is there. */
	mkdir_err = sftp_error(r, what, path, detail, detail_len);
	err = sftp_kind(r, what, path, &kind, why, sizeof why);
	if (err != BF_OK)
		return bf_fail(detail, detail_len, err, "%s", why);
	if (kind == PATH_DIR)
		return BF_OK;
	if (kind == PATH_OTHER)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: exists and is not a directory", what,
			       r->name, path);
	return mkdir_err;
}

enum bf_err remote_mkdir_p(struct remote *r, const char *remote_path, int mode,
			   char *detail, size_t detail_len)
{
	const char *what = "mkdir";
	enum path_kind kind = PATH_MISSING;
	enum bf_err err;
	char *p = NULL;
	char *slash;

	if (!r || !remote_path || !*remote_path)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "mkdir: missing handle or path");
	err = sftp_ready(r, what, remote_path, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* The common case, already there, costs one request. */
	err = sftp_kind(r, what, remote_path, &kind, detail, detail_len);
	if (err != BF_OK || kind == PATH_DIR)
		goto out;
	if (kind == PATH_OTHER) {
		err = bf_fail(detail, detail_len, BF_ERR_IO,
			      "%s %s:%s: exists and is not a directory", what,
			      r->name, remote_path);
		goto out;
	}
	p = strdup(remote_path);
	if (!p) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "mkdir %s: out of memory", r->name);
		goto out;
	}
	/* Each parent in turn (skipping "/" and empty parts of "a//b"),
	 * then the path itself. */
	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (slash[-1] == '/')
			continue;
		*slash = '\0';
		err = sftp_mkdir_one(r, p, mode, detail, detail_len);
		*slash = '/';
		if (err != BF_OK)
			goto out;
	}
	err = sftp_mkdir_one(r, p, mode, detail, detail_len);
out:
	free(p);
	if (r && r->session && r->broken == BF_OK)
		ssh_set_blocking(r->session, 0);
	return err;
}

enum bf_err remote_upload(struct remote *r, const char *remote_path,
			  const void *data, size_t len_bytes, int mode,
			  char *detail, size_t detail_len)
{
	static atomic_uint counter;
	const char *what = "upload";
	const char *base;
	enum watchdog_fired fired = WATCHDOG_NONE;
	enum bf_err err;
	sftp_file f = NULL;
	char *tmp = NULL;
	int tmp_exists = 0;
	size_t off = 0;
	int rc;

	if (!r || !remote_path || !*remote_path || (!data && len_bytes))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "upload: missing handle, path or data");
	base = strrchr(remote_path, '/');
	base = base ? base + 1 : remote_path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "upload %s: '%s' names no file", r->name,
			       remote_path);
	err = sftp_ready(r, what, remote_path, detail, detail_len);
	if (err != BF_OK)
		goto out;

	/* Hidden, unique temporary next to the target (same filesystem, so
	 * the rename is atomic). */
	if (asprintf(&tmp, "%.*s.%s.bf-tmp-%ld-%u",
		     (int)(base - remote_path), remote_path, base,
		     (long)getpid(),
		     atomic_fetch_add_explicit(&counter, 1,
					       memory_order_relaxed) + 1) < 0) {
		tmp = NULL;
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "upload %s: out of memory", r->name);
		goto out;
	}
	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* 0600 while incomplete; the final mode is set before the rename. */
	f = sftp_open(r->sftp, tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		goto cut;
	if (!f) {
		err = sftp_error(r, what, remote_path, detail, detail_len);
		goto out;
	}
	tmp_exists = 1;

	while (off < len_bytes) {
		size_t chunk = len_bytes - off;
		ssize_t n;

		if (chunk > REMOTE_SFTP_CHUNK_BYTES)
			chunk = REMOTE_SFTP_CHUNK_BYTES;
		err = watchdog_arm(r, detail, detail_len);
		if (err != BF_OK)
			goto out;
		n = sftp_write(f, (const char *)data + off, chunk);
		fired = watchdog_disarm(r);
		if (fired != WATCHDOG_NONE)
			goto cut;
		if (n <= 0) {
			err = sftp_error(r, what, remote_path, detail,
					 detail_len);
			goto out;
		}
		off += (size_t)n;
	}

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		goto out;
	rc = sftp_close(f);
	f = NULL;
	if (rc == SSH_OK)
		rc = sftp_chmod(r->sftp, tmp, (mode_t)(mode & 07777));
	if (rc == SSH_OK) {
		rc = sftp_rename(r->sftp, tmp, remote_path);
		/* A plain SFTP v3 rename refuses an existing target: remove
		 * it and rename again. Readers see the old file or none,
		 * never a partial one. */
		if (rc != SSH_OK && ssh_is_connected(r->session) &&
		    (sftp_get_error(r->sftp) == SSH_FX_FAILURE ||
		     sftp_get_error(r->sftp) == SSH_FX_FILE_ALREADY_EXISTS) &&
		    sftp_unlink(r->sftp, remote_path) == SSH_OK)
			rc = sftp_rename(r->sftp, tmp, remote_path);
	}
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		goto cut;
	if (rc != SSH_OK) {
		err = sftp_error(r, what, remote_path, detail, detail_len);
		goto out;
	}
	tmp_exists = 0;
	err = BF_OK;
	goto out;
cut:
	err = sftp_cut(r, fired, what, remote_path, detail, detail_len);
out:
	if (f) {
		if (r->broken == BF_OK &&
		    watchdog_arm(r, NULL, 0) == BF_OK) {
			sftp_close(f);
			watchdog_disarm(r);
		} else {
			sftp_close(f);   /* socket is shut: fails at once */
		}
	}
	if (tmp_exists && r->broken == BF_OK &&
	    watchdog_arm(r, NULL, 0) == BF_OK) {
		sftp_unlink(r->sftp, tmp);
		watchdog_disarm(r);
	}
	free(tmp);
	if (r->session && r->broken == BF_OK)
		ssh_set_blocking(r->session, 0);
	return err;
}


void remote_sftp_end(struct remote *r)
{
	if (r->sftp) {
		sftp_free(r->sftp);
		r->sftp = NULL;
	}
}
