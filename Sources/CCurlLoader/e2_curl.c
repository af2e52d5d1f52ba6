/* e2_curl.c - see include/e2_curl.h. */
#include "e2_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static e2_curl loaded;
static int loaded_ok;
static char load_error[256];

static void load_once(void) {
    memset(&loaded, 0, sizeof loaded);
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define E2_CURL_LOOKUP(name)                                                                           \
    loaded.name = (e2_##name##_fn *)dlsym(library, #name);                                          \
    if (!loaded.name) {                                                                               \
        snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (too old)", #name);          \
        return;                                                                                       \
    }
    E2_CURL_FUNCTIONS(E2_CURL_LOOKUP)
#undef E2_CURL_LOOKUP
    if (loaded.curl_global_init(E2_CURL_GLOBAL_DEFAULT) != E2_CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    loaded_ok = 1;
}

const e2_curl *e2_curl_load(char *why, int length) {
    pthread_once(&once, load_once);
    if (loaded_ok) return &loaded;
    if (why && length > 0) snprintf(why, (size_t)length, "%s", load_error);
    return NULL;
}

/* A body kept whole up to a limit; a longer one stops the transfer (CURLE_WRITE_ERROR). */
typedef struct e2_curl_bounded {
    e2_curl_response *response;
    size_t limit;
    size_t capacity;
    int over;
} e2_curl_bounded;

static size_t collect_bounded(char *data, size_t size, size_t count, void *user) {
    e2_curl_bounded *bounded = user;
    e2_curl_response *response = bounded->response;
    size_t bytes = size * count;
    if (bytes > bounded->limit - response->length) {
        bounded->over = 1;
        return 0;
    }
    if (response->length + bytes + 1 > bounded->capacity) {
        size_t wanted = bounded->capacity ? bounded->capacity : 64 * 1024;
        while (wanted < response->length + bytes + 1) wanted *= 2;
        char *grown = realloc(response->body, wanted);
        if (!grown) return 0;
        response->body = grown;
        bounded->capacity = wanted;
    }
    memcpy(response->body + response->length, data, bytes);
    response->length += bytes;
    response->body[response->length] = '\0';
    return bytes;
}

int e2_curl_request(const e2_curl *api, const char *url, const char *bearer, const char *body, long connect_ms,
                    long total_ms, size_t limit, e2_curl_response *response, char *why, int length) {
    memset(response, 0, sizeof *response);
    e2_CURL *curl = api->curl_easy_init();
    if (!curl) {
        if (why && length > 0) snprintf(why, (size_t)length, "curl_easy_init failed");
        return 0;
    }
    struct e2_curl_slist *headers = NULL;
    if (body) headers = api->curl_slist_append(headers, "Content-Type: application/json");
    headers = api->curl_slist_append(headers, "Accept: application/json, application/octet-stream");
    char authorization[1024];
    if (bearer) {
        /* a secret that does not fit is refused, never cut (the callers check its length first) */
        int needed = snprintf(authorization, sizeof authorization, "Authorization: Bearer %s", bearer);
        if (needed < 0 || (size_t)needed >= sizeof authorization || strpbrk(bearer, "\r\n")) {
            if (headers) api->curl_slist_free_all(headers);
            api->curl_easy_cleanup(curl);
            if (why && length > 0) snprintf(why, (size_t)length, "the API secret is too long or holds a line break");
            return 0;
        }
        headers = api->curl_slist_append(headers, authorization);
    }
    e2_curl_bounded bounded = {response, limit, 0, 0};
    api->curl_easy_setopt(curl, E2_CURLOPT_URL, url);
    api->curl_easy_setopt(curl, E2_CURLOPT_HTTPHEADER, headers);
    if (body) {
        api->curl_easy_setopt(curl, E2_CURLOPT_POSTFIELDS, body);
        api->curl_easy_setopt(curl, E2_CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        api->curl_easy_setopt(curl, E2_CURLOPT_HTTPGET, 1L);
    }
    api->curl_easy_setopt(curl, E2_CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    api->curl_easy_setopt(curl, E2_CURLOPT_TIMEOUT_MS, total_ms);
    api->curl_easy_setopt(curl, E2_CURLOPT_NOSIGNAL, 1L);
    api->curl_easy_setopt(curl, E2_CURLOPT_FOLLOWLOCATION, 0L);
    api->curl_easy_setopt(curl, E2_CURLOPT_WRITEFUNCTION, collect_bounded);
    api->curl_easy_setopt(curl, E2_CURLOPT_WRITEDATA, &bounded);
    e2_CURLcode code = api->curl_easy_perform(curl);
    int answered = 0;
    if (code == E2_CURLE_OK) {
        api->curl_easy_getinfo(curl, E2_CURLINFO_RESPONSE_CODE, &response->status);
        answered = 1;
    } else if (why && length > 0) {
        if (bounded.over) {
            snprintf(why, (size_t)length, "the answer is larger than %zu bytes", limit);
        } else {
            snprintf(why, (size_t)length, "%s", api->curl_easy_strerror(code));
        }
    }
    if (headers) api->curl_slist_free_all(headers);
    api->curl_easy_cleanup(curl);
    if (!answered) e2_curl_response_free(response);
    return answered;
}

void e2_curl_response_free(e2_curl_response *response) {
    free(response->body);
    response->body = NULL;
    response->length = 0;
}
