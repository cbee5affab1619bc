/* SPDX-License-Identifier: GPL-2.0 */
/* SHA-256 in hex (OpenSSL's libcrypto), for content hashes and cache keys. */
#ifndef GATE_HASH_H
#define GATE_HASH_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

struct hash_ctx;

/* Incremental: begin, feed any number of times, finish into @out (65 bytes). */
struct hash_ctx *hash_begin(void);
void hash_feed(struct hash_ctx *ctx, const void *data, size_t len);
void hash_finish(struct hash_ctx *ctx, char out[SHA256_HEX_LEN + 1]);

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

/* Hash a file's bytes; 0 or -errno. */
int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1]);

#endif
