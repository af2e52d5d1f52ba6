/*
 * test_avatar_files.c - ABI tests of avatar files: missing, truncated and corrupt .imx files are refused
 * with a reason (the edits are made with imx_edit.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "abi_support.h"
#include "imx_edit.h"
#include "tests.h"

/* create on `path` must fail with -2, *out NULL and a reason; the reason must contain `word` when given. */
static void expect_refused_avatar(const char *file, int line, const char *label, const char *path, const char *word) {
    be_essence2_handle sentinel = (be_essence2_handle)(void *)&sentinel, h = sentinel;
    int32_t rc = be_essence2_create(path, NULL, 0, &h);
    char reason[512];
    int32_t len = be_essence2_last_error(reason, (int32_t)sizeof reason);
    if (rc != BE_ESSENCE2_ERR_AVATAR) harness_report(file, line, "%s: create: expected -2, got %d", label, rc);
    if (h != NULL) harness_report(file, line, "%s: expected *out == NULL", label);
    if (len <= 0) harness_report(file, line, "%s: expected a reason from last_error, got length %d", label, len);
    if (len > 0 && word) {
        int found = 0;
        for (const char *p = reason; *p && !found; p++) found = strncasecmp(p, word, strlen(word)) == 0;
        if (!found) harness_report(file, line, "%s: expected the reason to mention \"%s\", got \"%s\"", label, word, reason);
    }
    if (len > 0) printf("    %-28s -> %s\n", label, reason);
    if (rc == 0 && h != NULL && h != sentinel) be_essence2_destroy(h);
}
#define EXPECT_REFUSED(label, path, word) expect_refused_avatar(__FILE__, __LINE__, (label), (path), (word))

/* Overwrites a section's stored bytes with zeros and re-seals its digest: only the content is wrong. */
static void zero_section(struct imx_file *f, const char *name) {
    uint8_t *e = imx_entry(f, name);
    if (!e) return;
    uint64_t off = imx_get_u64(e + IMX_ENTRY_OFF_OFFSET), len = imx_get_u64(e + IMX_ENTRY_OFF_STORED);
    if (off <= f->size && len <= f->size - off) memset(f->bytes + off, 0, (size_t)len);
    imx_reseal_section(f, e);
}

void test_corrupt_avatar_files_are_refused_with_a_reason(void) {
    char dir[] = "/tmp/essence2-imx-XXXXXX", path[512];
    struct imx_file orig = {NULL, 0}, f = {NULL, 0};
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp failed");
    REQUIRE(imx_load(g_avatar, &orig) == 0, "cannot read %s", g_avatar);
    REQUIRE(orig.size > IMX_HEADER_SIZE + IMX_ENTRY_SIZE, "%s is too small (%zu bytes)", g_avatar, orig.size);
    REQUIRE(imx_table_digest_ok(&orig), "%s: the test's reading of docs/imx-format.md does not match the file "
            "(header digest differs)", g_avatar);
    uint8_t *image = imx_entry(&orig, "image");
    REQUIRE(image != NULL, "%s has no 'image' section", g_avatar);
    size_t image_entry = (size_t)(image - orig.bytes);
    uint64_t image_off = imx_get_u64(image + IMX_ENTRY_OFF_OFFSET), image_len = imx_get_u64(image + IMX_ENTRY_OFF_STORED);
    REQUIRE(image_len > 16 && image_off + image_len <= orig.size, "bad image section in %s", g_avatar);

    /* controls: an unchanged copy and a re-sealed unchanged copy load */
    snprintf(path, sizeof path, "%s/copy.imx", dir);
    REQUIRE(imx_save(&orig, orig.size, path) == 0, "cannot write %s", path);
    be_essence2_handle h = NULL;
    int32_t rc = be_essence2_create(path, NULL, 0, &h);
    CHECK(rc == 0, "control: an exact copy must load, got %d (%s)", rc, last_error_text());
    if (rc == 0) be_essence2_destroy(h);

#define CASE(label, word, edit)                                      \
    do {                                                             \
        f = imx_copy(&orig);                                         \
        size_t size_ = f.size;                                       \
        edit;                                                        \
        snprintf(path, sizeof path, "%s/case.imx", dir);             \
        if (imx_save(&f, size_, path) != 0) {                        \
            CHECK(0, "cannot write %s", path);                       \
        } else {                                                     \
            EXPECT_REFUSED(label, path, word);                       \
        }                                                            \
        free(f.bytes);                                               \
        f.bytes = NULL;                                              \
    } while (0)

    snprintf(path, sizeof path, "%s/missing.imx", dir);
    EXPECT_REFUSED("missing", path, NULL);
    EXPECT_REFUSED("a directory", dir, NULL);
    CASE("empty", NULL, size_ = 0);
    CASE("truncated in the magic", NULL, size_ = 4);
    CASE("truncated in the header", NULL, size_ = 40);
    CASE("truncated in the table", NULL, size_ = IMX_HEADER_SIZE + IMX_ENTRY_SIZE / 2);
    CASE("truncated to half", NULL, size_ = orig.size / 2);
    CASE("truncated by one byte", NULL, size_ = orig.size - 1);
    CASE("one byte appended", NULL, (f.bytes[orig.size] = 0, size_ = orig.size + 1));
    CASE("wrong magic", NULL, f.bytes[1] = 'J');
    CASE("garbage in the table", "checksum", memset(f.bytes + IMX_HEADER_SIZE + 20, 0x5A, 24));
    CASE("all bytes garbage", NULL, for (size_t i = 0; i < f.size; i++) f.bytes[i] = (uint8_t)(i * 131 + 7));
    CASE("checksum: image byte flipped", "checksum", f.bytes[image_off + image_len / 2] ^= 0x01);
    CASE("checksum: header byte changed", "checksum", f.bytes[IMX_OFF_WIDTH] ^= 0x01);
    CASE("version 2 (re-sealed)", "version", (imx_put_u32(f.bytes + IMX_OFF_VERSION, 2), imx_reseal_table(&f)));
    CASE("version 0 (re-sealed)", "version", (imx_put_u32(f.bytes + IMX_OFF_VERSION, 0), imx_reseal_table(&f)));
    CASE("version 0xFFFFFFFF", "version", imx_put_u32(f.bytes + IMX_OFF_VERSION, 0xFFFFFFFFu));
    CASE("absurd file size (re-sealed)", NULL,
         (imx_put_u64(f.bytes + IMX_OFF_FILE_SIZE, UINT64_MAX / 2), imx_reseal_table(&f)));
    CASE("absurd section count", NULL, (imx_put_u32(f.bytes + IMX_OFF_SECTIONS, 0xFFFFFFF0u), imx_reseal_table(&f)));
    CASE("absurd width (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_WIDTH, 0x7FFFFFFFu), imx_reseal_table(&f)));
    CASE("absurd height (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_HEIGHT, 0xFFFFFFFFu), imx_reseal_table(&f)));
    CASE("zero width (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_WIDTH, 0), imx_reseal_table(&f)));
    CASE("absurd section length (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH, 1ull << 40), imx_reseal_table(&f)));
    CASE("absurd stored length (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_STORED, UINT64_MAX - 8), imx_reseal_table(&f)));
    CASE("absurd section offset (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_OFFSET, UINT64_MAX - 100), imx_reseal_table(&f)));
    /* payload corrupted and its digest re-sealed: the content check must still refuse a bad decode */
    CASE("image length off by one (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH,
                      imx_get_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH) + 1),
          imx_reseal_table(&f)));
    CASE("section renamed (re-sealed)", NULL, (f.bytes[image_entry] = 'J', imx_reseal_table(&f)));
    CASE("manifest zeroed (re-sealed)", NULL, zero_section(&f, "manifest"));
    CASE("landmarks zeroed (re-sealed)", NULL, zero_section(&f, "landmarks"));
    CASE("mesh zeroed (re-sealed)", NULL, zero_section(&f, "mesh"));
#undef CASE

    /* after all these refusals the good file still loads */
    h = NULL;
    rc = be_essence2_create(g_avatar, NULL, 0, &h);
    CHECK(rc == 0, "the original avatar must still load, got %d", rc);
    if (rc == 0) be_essence2_destroy(h);
done:
    free(orig.bytes);
    free(f.bytes);
    if (dir[strlen(dir) - 1] != 'X') {
        snprintf(path, sizeof path, "%s/copy.imx", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/case.imx", dir);
        unlink(path);
        rmdir(dir);
    }
}
