/* e2_sdl.c - see include/e2_sdl.h. */
#include "e2_sdl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int e2_sdl_load(e2_sdl *api, char *why, int length) {
    memset(api, 0, sizeof *api);
    void *library = dlopen("libSDL2-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libSDL2.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        if (why && length > 0) snprintf(why, (size_t)length, "%s", dlerror());
        return 0;
    }
#define E2_SDL_LOOKUP(name)                                                                   \
    api->name = (__typeof__(name) *)dlsym(library, #name);                                   \
    if (!api->name) {                                                                        \
        if (why && length > 0) snprintf(why, (size_t)length, "SDL2 has no %s (too old)", #name); \
        return 0;                                                                            \
    }
    E2_SDL_FUNCTIONS(E2_SDL_LOOKUP)
#undef E2_SDL_LOOKUP
    return 1;
}
