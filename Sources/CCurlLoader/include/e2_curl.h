/*
 * e2_curl.h - libcurl, loaded at run time: libessence2 talks HTTP only when a metering service is configured
 * (docs/sessions.md), so the library does not link libcurl (it gains no link dependency, and no libcurl is
 * loaded when no service is configured). e2_curl_load() dlopens libcurl.so.4 once and fills a table of the
 * functions used, typed from the declarations in e2_curl_abi.h (checked against curl's own header in the
 * tests, so the library builds without libcurl4-openssl-dev); e2_curl_request() makes one POST or GET with them
 * (the variadic curl_easy_setopt stays on this side of the boundary).
 */
#ifndef ESSENCE2_CURL_LOADER_H
#define ESSENCE2_CURL_LOADER_H

#include "e2_curl_abi.h"

#include <stddef.h>

#define E2_CURL_FUNCTIONS(X)                                                                                 \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) X(curl_easy_perform)        \
    X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

/* One pointer per function, of the function's own type. */
typedef struct e2_curl {
#define E2_CURL_MEMBER(name) e2_##name##_fn *name;
    E2_CURL_FUNCTIONS(E2_CURL_MEMBER)
#undef E2_CURL_MEMBER
} e2_curl;

/*
 * The process's libcurl, loaded (and curl_global_init run) on the first call, thread-safely; NULL when it
 * cannot be loaded, with the reason copied into why[0 .. length-1], NUL-terminated. It stays loaded for the
 * life of the process.
 */
const e2_curl *e2_curl_load(char *why, int length);

/* The answer to one request: the HTTP status (0 when no answer came) and the body, malloc'ed (free it with
   e2_curl_response_free). */
typedef struct e2_curl_response {
    long status;
    char *body;
    size_t length;
} e2_curl_response;

/*
 * One request to `url` with `Authorization: Bearer <bearer>` (none when bearer is NULL): a POST of `body`
 * (JSON) or, when body is NULL, a GET; with the connect and total timeouts in milliseconds. TLS is verified
 * with the system's CA bundle (curl's default), and curl's proxy variables (http_proxy, https_proxy, no_proxy)
 * apply. No signals are used (safe on any thread). The answer's body is kept in memory up to `limit` bytes: a
 * longer one stops the transfer and the call fails ("larger than ..."). Returns 1 when an HTTP answer came (any
 * status), else 0 with the reason in why.
 */
int e2_curl_request(const e2_curl *api, const char *url, const char *bearer, const char *body, long connect_ms,
                    long total_ms, size_t limit, e2_curl_response *response, char *why, int length);

void e2_curl_response_free(e2_curl_response *response);

#endif
