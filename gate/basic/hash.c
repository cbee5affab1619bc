// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <openssl/evp.h>

#include "basic/hash.h"
#include "basic/strbuf.h"
#include "basic/xalloc.h"

struct hash_ctx {
	EVP_MD_CTX *md;
};

struct hash_ctx *hash_begin(void)
{
	struct hash_ctx *ctx = xmalloc(sizeof(*ctx));

	ctx->md = EVP_MD_CTX_new();
	if (!ctx->md || EVP_DigestInit_ex(ctx->md, EVP_sha256(), NULL) != 1)
		abort();
	return ctx;
}

void hash_feed(struct hash_ctx *ctx, const void *data, size_t len)
{
	EVP_DigestUpdate(ctx->md, data, len);
}

void hash_finish(struct hash_ctx *ctx, char out[SHA256_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(ctx->md, digest, &n);
	for (unsigned int i = 0; i < n && i < SHA256_HEX_LEN / 2; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
	EVP_MD_CTX_free(ctx->md);
	free(ctx);
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1])
{
	struct hash_ctx *ctx = hash_begin();

	hash_feed(ctx, data, len);
	hash_finish(ctx, out);
}

int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1])
{
	struct strbuf sb = STRBUF_INIT;
	int r = strbuf_read_file(&sb, path);

	if (r == 0)
		sha256_hex(sb.buf, sb.len, out);
	strbuf_release(&sb);
	return r;
}
