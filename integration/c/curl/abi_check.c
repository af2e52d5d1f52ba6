/*
 * abi_check.c - compiled (never run) by `make test-c`: every value and layout that
 * Sources/CCurlLoader/include/e2_curl_abi.h declares must equal libcurl's own in <curl/curl.h>, so the library,
 * which builds without curl's headers, calls libcurl.so.4 exactly as a program built against them would.
 */
#include <curl/curl.h>
#include <stddef.h>

#include "e2_curl_abi.h"

#define SAME(ours, theirs) _Static_assert((long)(ours) == (long)(theirs), #ours " differs from curl's " #theirs)

SAME(E2_CURLE_OK, CURLE_OK);
SAME(E2_CURLE_WRITE_ERROR, CURLE_WRITE_ERROR);
SAME(E2_CURL_GLOBAL_DEFAULT, CURL_GLOBAL_DEFAULT);
SAME(E2_CURLOPT_WRITEDATA, CURLOPT_WRITEDATA);
SAME(E2_CURLOPT_URL, CURLOPT_URL);
SAME(E2_CURLOPT_POSTFIELDS, CURLOPT_POSTFIELDS);
SAME(E2_CURLOPT_HTTPHEADER, CURLOPT_HTTPHEADER);
SAME(E2_CURLOPT_WRITEFUNCTION, CURLOPT_WRITEFUNCTION);
SAME(E2_CURLOPT_FOLLOWLOCATION, CURLOPT_FOLLOWLOCATION);
SAME(E2_CURLOPT_POSTFIELDSIZE, CURLOPT_POSTFIELDSIZE);
SAME(E2_CURLOPT_HTTPGET, CURLOPT_HTTPGET);
SAME(E2_CURLOPT_NOSIGNAL, CURLOPT_NOSIGNAL);
SAME(E2_CURLOPT_TIMEOUT_MS, CURLOPT_TIMEOUT_MS);
SAME(E2_CURLOPT_CONNECTTIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS);
SAME(E2_CURLINFO_RESPONSE_CODE, CURLINFO_RESPONSE_CODE);

/* The enums travel as int: same size as curl's. */
SAME(sizeof(e2_CURLcode), sizeof(CURLcode));
SAME(sizeof(e2_CURLoption), sizeof(CURLoption));
SAME(sizeof(e2_CURLINFO), sizeof(CURLINFO));

/* struct curl_slist's layout. */
SAME(sizeof(struct e2_curl_slist), sizeof(struct curl_slist));
SAME(offsetof(struct e2_curl_slist, data), offsetof(struct curl_slist, data));
SAME(offsetof(struct e2_curl_slist, next), offsetof(struct curl_slist, next));

/* The functions' types, where curl's are plain C types (the enum-returning ones are checked by size above). */
_Static_assert(__builtin_types_compatible_p(e2_curl_easy_init_fn *, __typeof__(&curl_easy_init)), "curl_easy_init");
_Static_assert(__builtin_types_compatible_p(e2_curl_easy_cleanup_fn *, __typeof__(&curl_easy_cleanup)), "curl_easy_cleanup");
_Static_assert(__builtin_types_compatible_p(const char *(*)(CURLcode), __typeof__(&curl_easy_strerror)), "curl_easy_strerror");
_Static_assert(__builtin_types_compatible_p(void (*)(struct curl_slist *), __typeof__(&curl_slist_free_all)), "curl_slist_free_all");
