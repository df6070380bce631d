/*
 * remote_cert: OpenSSH certificates read and checked (see remote_cert.h).
 * The wire format is RFC 4251 section 5 (uint32, uint64, string, mpint)
 * in the layout of PROTOCOL.certkeys; the signature formats are RFC 8709
 * (Ed25519), RFC 5656 section 3.1.2 (ECDSA: mpint r, mpint s) and RFC
 * 8332 (RSA, PKCS#1 v1.5 with SHA-256/512). OpenSSL 3 does the
 * arithmetic.
 */
#include "remote/remote_cert.h"
#include "bf_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#define MAX_PRINCIPALS 256        /* sshkey.h SSHKEY_CERT_MAX_PRINCIPALS */
#define RSA_MIN_BITS 1024         /* sshkey.h SSH_RSA_MINIMUM_MODULUS_SIZE */
#define ED25519_PK_BYTES 32
#define ED25519_SIG_BYTES 64

/* A cursor over wire-format bytes. */
struct rd {
	const unsigned char *p;
	size_t left;
	int bad;
};

static uint32_t get_u32(struct rd *r)
{
	uint32_t v;

	if (r->bad || r->left < 4) {
		r->bad = 1;
		return 0;
	}
	v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
	    (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->left -= 4;
	return v;
}

static uint64_t get_u64(struct rd *r)
{
	uint64_t hi = get_u32(r);

	return hi << 32 | get_u32(r);
}

/* A string's bytes (not copied), *len set; NULL when malformed. */
static const unsigned char *get_str(struct rd *r, size_t *len)
{
	uint32_t n = get_u32(r);
	const unsigned char *s = r->p;

	if (r->bad || n > r->left) {
		r->bad = 1;
		*len = 0;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	*len = n;
	return s;
}

/* A string that holds no NUL (sshbuf_get_cstring) into buf (size
 * bytes); 0, or -1 when malformed or longer than size - 1 bytes: the
 * names read so (key types, curve and signature algorithms) are compared
 * with names ctl knows, which a cut one must never match. */
static int get_cstr(struct rd *r, char *buf, size_t size)
{
	size_t n;
	const unsigned char *s = get_str(r, &n);

	if (!s || memchr(s, '\0', n) || n >= size)
		return -1;
	/* fits: n < size checked above */
	snprintf(buf, size, "%.*s", (int)n, (const char *)s);
	return 0;
}

/* As get_cstr, but a text that does not fit is cut and ends in "..."
 * (for messages only); 0, or -1 when malformed. */
static int get_cstr_cut(struct rd *r, char *buf, size_t size)
{
	size_t n;
	const unsigned char *s = get_str(r, &n);

	if (!s || memchr(s, '\0', n))
		return -1;
	(void)bf_text_fmt(buf, size, "%.*s", (int)n, (const char *)s);
	return 0;
}

/* As get_cstr, whole, into a new string (*out; caller frees); 0, or -1
 * when malformed (*out NULL), or -2 out of memory. */
static int get_cstr_dup(struct rd *r, char **out)
{
	size_t n;
	const unsigned char *s = get_str(r, &n);

	*out = NULL;
	if (!s || memchr(s, '\0', n))
		return -1;
	*out = strndup((const char *)s, n);
	return *out ? 0 : -2;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	int n;

	va_start(ap, fmt);
	n = vsnprintf(why, len, fmt, ap);
	va_end(ap);
	/* The reasons are short (their %s: names of at most 63 bytes,
	 * get_cstr); should one still not fit, it says so. */
	if (n >= 0 && (size_t)n >= len)
		bf_text_mark_cut(why, len);
}

int remote_cert_is_cert_type(const char *t)
{
	static const char tail[] = "-cert-v01@openssh.com";
	size_t n = strlen(t);

	return n > sizeof tail - 1 &&
	       strcmp(t + n - (sizeof tail - 1), tail) == 0;
}

/* The curve of an "ecdsa-sha2-nistpNNN" type: its OpenSSL group name, the
 * hash of its signatures (RFC 5656 6.2.1), and the name the key blob
 * holds; NULL for other types. */
static const struct curve {
	const char *type, *blob_name, *group, *hash;
} curves[] = {
	{ "ecdsa-sha2-nistp256", "nistp256", "P-256", "SHA256" },
	{ "ecdsa-sha2-nistp384", "nistp384", "P-384", "SHA384" },
	{ "ecdsa-sha2-nistp521", "nistp521", "P-521", "SHA512" },
};

static const struct curve *curve_of(const char *type)
{
	for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
		if (strcmp(type, curves[i].type) == 0)
			return &curves[i];
	return NULL;
}

/* An mpint's magnitude as a BIGNUM: positive, no needless leading zero
 * byte (RFC 4251 section 5; OpenSSH's sshbuf_get_bignum2 refuses the
 * others). NULL when malformed. */
static BIGNUM *get_bn(struct rd *r)
{
	size_t n;
	const unsigned char *s = get_str(r, &n);

	if (!s || (n && (s[0] & 0x80)) ||
	    (n > 1 && s[0] == 0 && !(s[1] & 0x80)) || n > 16384 / 8 + 1)
		return NULL;
	return BN_bin2bn(s, (int)n, NULL);
}

/* A public key of type `type` from r (the fields after its type name)
 * as an EVP_PKEY; NULL with why. Only the types a CA or a host key may
 * be here: Ed25519, ECDSA, RSA. */
static EVP_PKEY *get_key(struct rd *r, const char *type, char *why,
			 size_t why_len)
{
	const struct curve *cv = curve_of(type);
	EVP_PKEY *pk = NULL;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *e = NULL, *n = NULL;
	size_t len;
	const unsigned char *s;

	if (strcmp(type, "ssh-ed25519") == 0) {
		s = get_str(r, &len);
		if (!s || len != ED25519_PK_BYTES) {
			say(why, why_len, "bad Ed25519 key");
			return NULL;
		}
		pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, s,
						 len);
		if (!pk)
			say(why, why_len, "bad Ed25519 key");
		return pk;
	}
	if (strcmp(type, "ssh-rsa") == 0) {
		e = get_bn(r);
		n = get_bn(r);
		if (!e || !n || BN_is_zero(e) || BN_is_zero(n)) {
			say(why, why_len, "bad RSA key");
			goto out;
		}
		if (BN_num_bits(n) < RSA_MIN_BITS) {
			say(why, why_len, "RSA key of %d bits (%d at least)",
			    BN_num_bits(n), RSA_MIN_BITS);
			goto out;
		}
		bld = OSSL_PARAM_BLD_new();
		if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N,
						    n) ||
		    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
			goto bad_rsa;
	} else if (cv) {
		char name[32];
		const unsigned char *q;

		if (get_cstr(r, name, sizeof name) != 0 ||
		    strcmp(name, cv->blob_name) != 0 ||
		    !(q = get_str(r, &len)) || !len) {
			say(why, why_len, "bad ECDSA key");
			goto out;
		}
		bld = OSSL_PARAM_BLD_new();
		if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld,
				OSSL_PKEY_PARAM_GROUP_NAME, cv->group, 0) ||
		    !OSSL_PARAM_BLD_push_octet_string(bld,
				OSSL_PKEY_PARAM_PUB_KEY, q, len))
			goto bad_ec;
	} else {
		say(why, why_len, "key type %s is not one ctl verifies "
		    "(ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa)",
		    type);
		return NULL;
	}
	params = OSSL_PARAM_BLD_to_param(bld);
	ctx = EVP_PKEY_CTX_new_from_name(NULL, cv ? "EC" : "RSA", NULL);
	if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		goto bad;
	if (cv) {
		/* The point must be on the curve (sshkey_ec_validate_public
		 * in OpenSSH). */
		EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, pk,
								 NULL);
		int ok = check && EVP_PKEY_public_check(check) == 1;

		EVP_PKEY_CTX_free(check);
		if (!ok)
			goto bad_ec;
	}
	goto out;
bad_rsa:
	say(why, why_len, "bad RSA key");
	goto out;
bad_ec:
bad:
	say(why, why_len, cv ? "bad ECDSA key" : "bad RSA key");
	EVP_PKEY_free(pk);
	pk = NULL;
out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(e);
	BN_free(n);
	return pk;
}

/* Whether sig (an SSH signature blob: string algorithm, string data)
 * verifies data with CA key pk of type ca_type; the algorithm into alg.
 * 1, or 0 with why. */
static int verify(EVP_PKEY *pk, const char *ca_type, const unsigned char *sig,
		  size_t sig_len, const unsigned char *data, size_t data_len,
		  char *alg, size_t alg_len, char *why, size_t why_len)
{
	struct rd r = { sig, sig_len, 0 };
	const struct curve *cv = curve_of(ca_type);
	const EVP_MD *md = NULL;
	const unsigned char *s;
	unsigned char *der = NULL;
	size_t len;
	int der_len = 0, ok = 0;
	EVP_MD_CTX *mc = NULL;

	if (get_cstr(&r, alg, alg_len) != 0 || !(s = get_str(&r, &len)) ||
	    r.left) {
		say(why, why_len, "malformed signature");
		return 0;
	}
	if (strcmp(ca_type, "ssh-ed25519") == 0) {
		if (strcmp(alg, "ssh-ed25519") || len != ED25519_SIG_BYTES)
			goto mismatch;
	} else if (strcmp(ca_type, "ssh-rsa") == 0) {
		/* Any RSA algorithm here; CASignatureAlgorithms decides
		 * later (remote_cert_check_host), as in OpenSSH. */
		md = !strcmp(alg, "rsa-sha2-512") ? EVP_sha512() :
		     !strcmp(alg, "rsa-sha2-256") ? EVP_sha256() :
		     !strcmp(alg, "ssh-rsa") ? EVP_sha1() : NULL;
		if (!md)
			goto mismatch;
	} else if (cv) {
		struct rd sr = { s, len, 0 };
		BIGNUM *br, *bs;
		ECDSA_SIG *es;

		if (strcmp(alg, ca_type))
			goto mismatch;
		md = EVP_get_digestbyname(cv->hash);
		br = get_bn(&sr);
		bs = get_bn(&sr);
		es = ECDSA_SIG_new();
		if (!md || !br || !bs || sr.left || !es ||
		    !ECDSA_SIG_set0(es, br, bs)) {
			BN_free(br);
			BN_free(bs);
			ECDSA_SIG_free(es);
			say(why, why_len, "malformed ECDSA signature");
			return 0;
		}
		der_len = i2d_ECDSA_SIG(es, &der);
		ECDSA_SIG_free(es);
		if (der_len <= 0) {
			say(why, why_len, "malformed ECDSA signature");
			return 0;
		}
		s = der;
		len = (size_t)der_len;
	} else {
		goto mismatch;
	}
	mc = EVP_MD_CTX_new();
	ok = mc && EVP_DigestVerifyInit(mc, NULL, md, NULL, pk) == 1 &&
	     EVP_DigestVerify(mc, s, len, data, data_len) == 1;
	EVP_MD_CTX_free(mc);
	OPENSSL_free(der);
	if (!ok)
		say(why, why_len, "the CA's %s signature does not verify",
		    alg);
	return ok;
mismatch:
	say(why, why_len, "signature algorithm %s does not fit a %s CA key",
	    alg, ca_type);
	return 0;
}

/* Builds the plain key blob of the certified key: its type name, then
 * the key fields as the certificate holds them (from..to). */
static int plain_blob(struct remote_cert *c, const unsigned char *from,
		      const unsigned char *to)
{
	size_t tl = strlen(c->key_type), fl = (size_t)(to - from);

	c->key_blob_len = 4 + tl + fl;
	c->key_blob = malloc(c->key_blob_len);
	if (!c->key_blob)
		return -1;
	c->key_blob[0] = (unsigned char)(tl >> 24);
	c->key_blob[1] = (unsigned char)(tl >> 16);
	c->key_blob[2] = (unsigned char)(tl >> 8);
	c->key_blob[3] = (unsigned char)tl;
	memcpy(c->key_blob + 4, c->key_type, tl);
	memcpy(c->key_blob + 4 + tl, from, fl);
	return 0;
}

enum bf_err remote_cert_parse(const unsigned char *blob, size_t len,
			      struct remote_cert *c, char *why,
			      size_t why_len)
{
	static const char tail[] = "-cert-v01@openssh.com";
	struct rd r = { blob, len, 0 }, pr, crit, exts, car;
	const unsigned char *fields, *s, *sig;
	EVP_PKEY *key = NULL, *ca = NULL;
	size_t n, signed_len, sig_len;
	char why2[200];
	enum bf_err err = BF_ERR_PARSE;

	memset(c, 0, sizeof *c);
	if (get_cstr(&r, c->type_name, sizeof c->type_name) != 0 ||
	    !remote_cert_is_cert_type(c->type_name)) {
		say(why, why_len, "not a certificate");
		return BF_ERR_PARSE;
	}
	/* "ssh-rsa-cert-v01@openssh.com" certifies an "ssh-rsa" key. */
	/* fits: type_name is under 64 bytes (get_cstr), key_type 64 */
	snprintf(c->key_type, sizeof c->key_type, "%.*s",
		 (int)(strlen(c->type_name) - (sizeof tail - 1)),
		 c->type_name);
	if (!get_str(&r, &n)) {               /* nonce */
		say(why, why_len, "truncated at the nonce");
		return BF_ERR_PARSE;
	}
	fields = r.p;
	key = get_key(&r, c->key_type, why2, sizeof why2);
	if (!key) {
		say(why, why_len, "certified key: %s", why2);
		goto out;
	}
	if (plain_blob(c, fields, r.p) != 0) {
		err = BF_ERR_NOMEM;
		say(why, why_len, "out of memory");
		goto out;
	}
	c->serial = get_u64(&r);
	c->cert_type = get_u32(&r);
	if (r.bad || get_cstr_cut(&r, c->key_id, sizeof c->key_id) != 0) {
		say(why, why_len, "truncated at the serial, type or key id");
		goto out;
	}
	s = get_str(&r, &n);
	pr = (struct rd){ s, n, s == NULL };
	c->valid_after = get_u64(&r);
	c->valid_before = get_u64(&r);
	s = get_str(&r, &n);
	crit = (struct rd){ s, n, s == NULL };
	c->critical_bytes = n;
	s = get_str(&r, &n);
	exts = (struct rd){ s, n, s == NULL };
	get_str(&r, &n);                       /* reserved */
	s = get_str(&r, &n);
	car = (struct rd){ s, n, s == NULL };
	if (r.bad || pr.bad || crit.bad || exts.bad || car.bad) {
		say(why, why_len, "truncated before the signature");
		goto out;
	}
	signed_len = (size_t)(r.p - blob);
	sig = get_str(&r, &sig_len);
	if (!sig || r.left) {
		say(why, why_len, !sig ? "truncated at the signature" :
		    "bytes after the signature");
		goto out;
	}
	if (c->cert_type != REMOTE_CERT_TYPE_USER &&
	    c->cert_type != REMOTE_CERT_TYPE_HOST) {
		say(why, why_len, "unknown certificate type %u",
		    (unsigned)c->cert_type);
		goto out;
	}
	while (pr.left) {
		char **v;
		char *p = NULL;
		int got = c->nprincipals >= MAX_PRINCIPALS ? -1 :
			  get_cstr_dup(&pr, &p);

		/* Whole: a principal is compared with the host's name, and
		 * a cut one could match a name it does not hold. */
		if (got == -1) {
			say(why, why_len, "bad principals");
			goto out;
		}
		v = got ? NULL : realloc(c->principals,
					 (c->nprincipals + 1) * sizeof *v);
		if (v)
			v[c->nprincipals] = p;
		else
			free(p);
		if (!v) {
			err = BF_ERR_NOMEM;
			say(why, why_len, "out of memory");
			goto out;
		}
		c->principals = v;
		c->nprincipals++;
	}
	for (struct rd *o = &crit; o; o = o == &crit ? &exts : NULL)
		while (o->left) {
			get_str(o, &n);
			get_str(o, &n);
			if (o->bad) {
				say(why, why_len, "bad %s",
				    o == &crit ? "critical options" :
				    "extensions");
				goto out;
			}
		}
	/* The CA key: a plain key (sshkey_type_is_valid_ca). */
	c->ca_blob_len = car.left;
	c->ca_blob = malloc(car.left ? car.left : 1);
	if (!c->ca_blob) {
		err = BF_ERR_NOMEM;
		say(why, why_len, "out of memory");
		goto out;
	}
	memcpy(c->ca_blob, car.p, car.left);
	if (get_cstr(&car, c->ca_type, sizeof c->ca_type) != 0 ||
	    remote_cert_is_cert_type(c->ca_type) ||
	    !(ca = get_key(&car, c->ca_type, why2, sizeof why2)) || car.left) {
		say(why, why_len, "CA key: %s", ca || car.bad ? "malformed" :
		    remote_cert_is_cert_type(c->ca_type) ?
		    "a certificate" : why2);
		goto out;
	}
	if (!verify(ca, c->ca_type, sig, sig_len, blob, signed_len, c->sig_alg,
		    sizeof c->sig_alg, why, why_len))
		goto out;
	err = BF_OK;
out:
	EVP_PKEY_free(key);
	EVP_PKEY_free(ca);
	return err;
}

int remote_cert_check_host(const struct remote_cert *c, const char *name,
			   uint64_t now, const char **reason)
{
	/* myproposal.h SSH_ALLOWED_CA_SIGALGS, OpenSSH 9.2 (the sk-
	 * algorithms left out: remote_cert_parse takes no sk- CA). */
	static const char *const allowed[] = { "ssh-ed25519",
		"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
		"ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", NULL };
	int ok = 0;

	if (c->cert_type != REMOTE_CERT_TYPE_HOST) {
		*reason = "Certificate invalid: not a host certificate";
		return -1;
	}
	if (now < c->valid_after) {
		*reason = "Certificate invalid: not yet valid";
		return -1;
	}
	if (now >= c->valid_before) {
		*reason = "Certificate invalid: expired";
		return -1;
	}
	for (size_t i = 0; i < c->nprincipals && !ok; i++)
		ok = strcmp(name, c->principals[i]) == 0;
	if (c->nprincipals && !ok) {
		*reason = "Certificate invalid: name is not a listed principal";
		return -1;
	}
	if (c->critical_bytes) {
		*reason = "Certificate contains unsupported critical options";
		return -1;
	}
	for (int i = 0; allowed[i]; i++)
		if (strcmp(c->sig_alg, allowed[i]) == 0)
			return 0;
	*reason = "Certificate signed with disallowed algorithm";
	return -1;
}

void remote_cert_free(struct remote_cert *c)
{
	for (size_t i = 0; i < c->nprincipals; i++)
		free(c->principals[i]);
	free(c->principals);
	free(c->key_blob);
	free(c->ca_blob);
	memset(c, 0, sizeof *c);
}
