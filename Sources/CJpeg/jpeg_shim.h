/* A small setjmp-based wrapper around libjpeg for Swift, which cannot call setjmp itself: libjpeg's fatal
 * errors come back as a return code and a message instead of ending the process. */
#ifndef ESSENCE2_JPEG_SHIM_H
#define ESSENCE2_JPEG_SHIM_H

#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

struct e2_jpeg_errors {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    char first_warning[JMSG_LENGTH_MAX];
};

static void e2_jpeg_error_exit(j_common_ptr info) {
    struct e2_jpeg_errors *errors = (struct e2_jpeg_errors *)info->err;
    (*info->err->format_message)(info, errors->message);
    longjmp(errors->jump, 1);
}

static void e2_jpeg_emit_message(j_common_ptr info, int level) {
    struct e2_jpeg_errors *errors = (struct e2_jpeg_errors *)info->err;
    if (level >= 0) return; /* trace messages */
    if (info->err->num_warnings == 0) (*info->err->format_message)(info, errors->first_warning);
    info->err->num_warnings++;
}

/* Routes libjpeg's errors and warnings to `errors` (the caller then sets the jump point with setjmp, which
 * must happen in the function that runs the decoder). */
static void e2_jpeg_prepare(struct jpeg_decompress_struct *info, struct e2_jpeg_errors *errors) {
    memset(errors, 0, sizeof *errors);
    info->err = jpeg_std_error(&errors->mgr);
    errors->mgr.error_exit = e2_jpeg_error_exit;
    errors->mgr.emit_message = e2_jpeg_emit_message;
}

/* Reads a JPEG in memory. With out == NULL: sets *width and *height from the header and returns 0. Else
 * decodes into out (*width * *height * 3 bytes, packed B,G,R), whose size the caller read and checked first.
 * Returns 0; 1 when libjpeg worked around corrupt data (first warning in message); -1 on a fatal error or an
 * unexpected size (reason in message, JMSG_LENGTH_MAX bytes). */
static inline int e2_jpeg_read(const unsigned char *data, unsigned long size, unsigned char *out, int *width,
                               int *height, char *message) {
    struct jpeg_decompress_struct info;
    struct e2_jpeg_errors errors;
    e2_jpeg_prepare(&info, &errors);
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&info);
        memcpy(message, errors.message, JMSG_LENGTH_MAX);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_read_header(&info, TRUE);
    if (!out) {
        *width = (int)info.image_width;
        *height = (int)info.image_height;
        jpeg_destroy_decompress(&info);
        return 0;
    }
    info.out_color_space = JCS_EXT_BGR;
    jpeg_start_decompress(&info);
    if ((int)info.output_width != *width || (int)info.output_height != *height || info.output_components != 3) {
        snprintf(message, JMSG_LENGTH_MAX, "unexpected JPEG output format");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out + (size_t)info.output_scanline * (size_t)*width * 3;
        if (jpeg_read_scanlines(&info, &row, 1) == 0) break;
    }
    if (info.output_scanline < info.output_height) {
        snprintf(message, JMSG_LENGTH_MAX, "the JPEG data ends early");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_finish_decompress(&info);
    int warned = errors.mgr.num_warnings > 0;
    if (warned) memcpy(message, errors.first_warning, JMSG_LENGTH_MAX);
    jpeg_destroy_decompress(&info);
    return warned ? 1 : 0;
}

#endif
