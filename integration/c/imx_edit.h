/*
 * imx_edit.h - reading, editing and re-sealing `.imx` avatar files for the corrupt-file tests
 * (format: docs/imx-format.md, version 1, all integers little-endian).
 *
 * Header (64 bytes): magic[8] "\x89IMX\r\n\x1a\n", u32 version @8, u32 section count @12, u64 file size @16,
 * u32 width @24, u32 height @28, sha256 @32 over header bytes 0..32 followed by the section table.
 * Section table at 64, 80 bytes an entry: name[16] (NUL-padded), u32 encoding @16 (0 raw, 1 rle8),
 * u32 reserved @20, u64 offset @24, u64 stored length @32, u64 decoded length @40, sha256 of the stored
 * bytes @48.
 */
#ifndef ESSENCE2_TEST_IMX_EDIT_H
#define ESSENCE2_TEST_IMX_EDIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define IMX_HEADER_SIZE 64
#define IMX_ENTRY_SIZE 80
#define IMX_OFF_VERSION 8
#define IMX_OFF_SECTIONS 12
#define IMX_OFF_FILE_SIZE 16
#define IMX_OFF_WIDTH 24
#define IMX_OFF_HEIGHT 28
#define IMX_OFF_TABLE_DIGEST 32
#define IMX_DIGESTED_HEADER 32
#define IMX_ENTRY_OFF_OFFSET 24
#define IMX_ENTRY_OFF_STORED 32
#define IMX_ENTRY_OFF_LENGTH 40
#define IMX_ENTRY_OFF_DIGEST 48

struct imx_file {
    uint8_t *bytes;
    size_t size;
};

static uint32_t imx_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t imx_get_u64(const uint8_t *p) { return imx_get_u32(p) | (uint64_t)imx_get_u32(p + 4) << 32; }

static void imx_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void imx_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Reads a whole file; returns 0, or -1 (errno set). */
static int imx_load(const char *path, struct imx_file *f) {
    f->bytes = NULL;
    f->size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    if (fseek(fp, 0, SEEK_END) != 0) {
        fclose(fp);
        return -1;
    }
    long n = ftell(fp);
    if (n < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return -1;
    }
    f->bytes = malloc((size_t)n + 1);
    if (!f->bytes || fread(f->bytes, 1, (size_t)n, fp) != (size_t)n) {
        free(f->bytes);
        f->bytes = NULL;
        fclose(fp);
        return -1;
    }
    f->size = (size_t)n;
    fclose(fp);
    return 0;
}

/* Writes the first `size` bytes of f to path; returns 0 or -1. */
static int imx_save(const struct imx_file *f, size_t size, const char *path) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    if (size > 0 && fwrite(f->bytes, 1, size, fp) != size) {
        fclose(fp);
        return -1;
    }
    return fclose(fp) == 0 ? 0 : -1;
}

static struct imx_file imx_copy(const struct imx_file *f) {
    struct imx_file c = {malloc(f->size + 1), f->size};
    if (c.bytes) memcpy(c.bytes, f->bytes, f->size);
    return c;
}

static uint32_t imx_section_count(const struct imx_file *f) { return imx_get_u32(f->bytes + IMX_OFF_SECTIONS); }

/* The table entry of the section called `name`, or NULL. */
static uint8_t *imx_entry(const struct imx_file *f, const char *name) {
    uint32_t n = imx_section_count(f);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = f->bytes + IMX_HEADER_SIZE + (size_t)i * IMX_ENTRY_SIZE;
        if ((size_t)(e - f->bytes) + IMX_ENTRY_SIZE > f->size) return NULL;
        if (strncmp((const char *)e, name, 16) == 0) return e;
    }
    return NULL;
}

/* Recomputes the header-and-table digest, so an edited header field is the file's only defect. */
static void imx_reseal_table(struct imx_file *f) {
    size_t table_end = IMX_HEADER_SIZE + (size_t)imx_section_count(f) * IMX_ENTRY_SIZE;
    if (table_end > f->size) table_end = f->size;
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, f->bytes, IMX_DIGESTED_HEADER);
    sha256_update(&c, f->bytes + IMX_HEADER_SIZE, table_end - IMX_HEADER_SIZE);
    sha256_final(&c, f->bytes + IMX_OFF_TABLE_DIGEST);
}

/* Recomputes the digest of one section's stored bytes (then the table digest). */
static void imx_reseal_section(struct imx_file *f, uint8_t *entry) {
    uint64_t off = imx_get_u64(entry + IMX_ENTRY_OFF_OFFSET), len = imx_get_u64(entry + IMX_ENTRY_OFF_STORED);
    if (off <= f->size && len <= f->size - off) sha256(f->bytes + off, (size_t)len, entry + IMX_ENTRY_OFF_DIGEST);
    imx_reseal_table(f);
}

/* Whether the header and table digest of f is valid (a check of this file's own sealing). */
static int imx_table_digest_ok(const struct imx_file *f) {
    uint8_t saved[32];
    memcpy(saved, f->bytes + IMX_OFF_TABLE_DIGEST, 32);
    struct imx_file tmp = imx_copy(f);
    if (!tmp.bytes) return 0;
    imx_reseal_table(&tmp);
    int ok = memcmp(saved, tmp.bytes + IMX_OFF_TABLE_DIGEST, 32) == 0;
    free(tmp.bytes);
    return ok;
}

#endif /* ESSENCE2_TEST_IMX_EDIT_H */
