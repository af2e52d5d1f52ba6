/*
 * e2_sdl.h - SDL2, loaded at run time: `essence2 play` is the only part of the command that needs a window and
 * a sound card, so the command does not link SDL2 (render, bench and avatar build run where it is not
 * installed); e2_sdl_load() dlopens libSDL2-2.0.so.0 and fills a table of the functions the player uses, typed
 * from SDL's own declarations.
 */
#ifndef ESSENCE2_SDL_LOADER_H
#define ESSENCE2_SDL_LOADER_H

#include <SDL2/SDL.h>

#define E2_SDL_FUNCTIONS(X)                                                                                  \
    X(SDL_Init) X(SDL_Quit) X(SDL_GetError) X(SDL_SetHint) X(SDL_GetTicks64)                                   \
    X(SDL_CreateWindow) X(SDL_DestroyWindow) X(SDL_SetWindowTitle) X(SDL_SetWindowMinimumSize)                 \
    X(SDL_CreateRenderer) X(SDL_DestroyRenderer) X(SDL_GetRendererOutputSize) X(SDL_RenderClear)              \
    X(SDL_RenderCopy) X(SDL_RenderPresent) X(SDL_SetRenderDrawColor) X(SDL_RenderReadPixels)                  \
    X(SDL_CreateTexture) X(SDL_DestroyTexture) X(SDL_UpdateTexture)                                           \
    X(SDL_PollEvent) X(SDL_WaitEventTimeout) X(SDL_StartTextInput) X(SDL_StopTextInput)                      \
    X(SDL_OpenAudioDevice) X(SDL_CloseAudioDevice) X(SDL_PauseAudioDevice)                                    \
    X(SDL_LockAudioDevice) X(SDL_UnlockAudioDevice) X(SDL_GetCurrentAudioDriver) X(SDL_GetCurrentVideoDriver)

/* One pointer per function, of the function's own type. */
typedef struct e2_sdl {
#define E2_SDL_MEMBER(name) __typeof__(name) *name;
    E2_SDL_FUNCTIONS(E2_SDL_MEMBER)
#undef E2_SDL_MEMBER
} e2_sdl;

/*
 * Loads SDL2 and fills `api`. Returns 1, or 0 with the reason (no library, or a function missing) copied into
 * why[0 .. length-1], NUL-terminated. The library stays loaded for the life of the process.
 */
int e2_sdl_load(e2_sdl *api, char *why, int length);

#endif
