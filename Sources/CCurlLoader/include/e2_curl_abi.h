/*
 * e2_curl_abi.h - the part of libcurl's binary interface that e2_curl.c uses, declared here so that
 * libessence2.so builds without curl's headers (libcurl4-openssl-dev): the library loads libcurl.so.4 at run
 * time and only when a service is configured. These are libcurl 7/8's stable ABI values (curl never renumbers
 * an option); integration/c/curl_abi_check.c checks every one against <curl/curl.h> in `make test`.
 */
#ifndef ESSENCE2_CURL_ABI_H
#define ESSENCE2_CURL_ABI_H

#include <stddef.h>

typedef void e2_CURL;
typedef int e2_CURLcode;   /* enum CURLcode */
typedef int e2_CURLoption; /* enum CURLoption */
typedef int e2_CURLINFO;   /* enum CURLINFO */

/* struct curl_slist */
struct e2_curl_slist {
    char *data;
    struct e2_curl_slist *next;
};

enum {
    E2_CURLE_OK = 0,
    E2_CURLE_WRITE_ERROR = 23,
};

#define E2_CURL_GLOBAL_DEFAULT 3L /* CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32 */

/* CURLOPTTYPE_LONG 0, _OBJECTPOINT 10000, _FUNCTIONPOINT 20000, _OFF_T 30000 */
enum {
    E2_CURLOPT_WRITEDATA = 10001,
    E2_CURLOPT_URL = 10002,
    E2_CURLOPT_POSTFIELDS = 10015,
    E2_CURLOPT_HTTPHEADER = 10023,
    E2_CURLOPT_WRITEFUNCTION = 20011,
    E2_CURLOPT_FOLLOWLOCATION = 52,
    E2_CURLOPT_POSTFIELDSIZE = 60,
    E2_CURLOPT_HTTPGET = 80,
    E2_CURLOPT_NOSIGNAL = 99,
    E2_CURLOPT_TIMEOUT_MS = 155,
    E2_CURLOPT_CONNECTTIMEOUT_MS = 156,
};

/* CURLINFO_LONG (0x200000) + 2 */
#define E2_CURLINFO_RESPONSE_CODE 0x200002

/* The functions' types, as curl declares them. */
typedef e2_CURLcode e2_curl_global_init_fn(long flags);
typedef e2_CURL *e2_curl_easy_init_fn(void);
typedef void e2_curl_easy_cleanup_fn(e2_CURL *curl);
typedef e2_CURLcode e2_curl_easy_setopt_fn(e2_CURL *curl, e2_CURLoption option, ...);
typedef e2_CURLcode e2_curl_easy_perform_fn(e2_CURL *curl);
typedef e2_CURLcode e2_curl_easy_getinfo_fn(e2_CURL *curl, e2_CURLINFO info, ...);
typedef const char *e2_curl_easy_strerror_fn(e2_CURLcode code);
typedef struct e2_curl_slist *e2_curl_slist_append_fn(struct e2_curl_slist *list, const char *string);
typedef void e2_curl_slist_free_all_fn(struct e2_curl_slist *list);

#endif
