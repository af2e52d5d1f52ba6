/*
 * test_main.c - the test table and main() of test_abi, the tests of the C interface of libessence2
 * (include/essence2.h), from a C host's side.
 *
 * Usage: test_abi [--no-fork] [AVATAR.imx] [NAME-FILTER...]
 *   AVATAR defaults to avatars/grace-hopper.imx (run from the repository root). Each test runs in its own
 *   child process (see harness.h); filters select tests whose name contains them.
 * Output: one line per test, then "N passed, M failed"; exit status 1 when any test failed.
 * Built from all the .c files of integration/c as build/test_abi and, under AddressSanitizer,
 * build/test_abi_asan (see the Makefile and run.sh). The tests are in the test_<concern>.c files (declared in
 * tests.h); what they share is in abi_support.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "abi_support.h"
#include "essence2.h"
#include "harness.h"
#include "tests.h"

/* The failed checks of the running test (see harness.h): one count for all the files. */
int harness_failures;

static const struct test_case tests[] = {
    {"version_and_strerror_are_static_strings", test_version_and_strerror_are_static_strings, 10},
    {"null_handle_is_refused_by_every_function", test_null_handle_is_refused_by_every_function, 10},
    {"unknown_handle_is_refused_by_every_function", test_unknown_handle_is_refused_by_every_function, 10},
    {"destroyed_handle_is_refused_and_double_destroy_fails", test_destroyed_handle_is_refused_and_double_destroy_fails, 20},
    {"create_rejects_bad_arguments_and_sets_out_to_null", test_create_rejects_bad_arguments_and_sets_out_to_null, 20},
    {"last_error_and_last_refusal_follow_their_contract", test_last_error_and_last_refusal_follow_their_contract, 20},
    {"api_secret_set_and_clear_and_sessions_still_start", test_api_secret_set_and_clear_and_sessions_still_start, 20},
    {"configured_service_refuses_without_secret_or_answer", test_configured_service_refuses_without_secret_or_answer, 20},
    {"download_avatar_checks_arguments_and_says_why", test_download_avatar_checks_arguments_and_says_why, 20},
    {"short_buffers_negative_counts_and_bad_modes_are_refused", test_short_buffers_negative_counts_and_bad_modes_are_refused, 30},
    {"fresh_engine_reports_no_frame_yet_and_is_healthy", test_fresh_engine_reports_no_frame_yet_and_is_healthy, 30},
    {"idle_frames_keep_moving_between_replies", test_idle_frames_keep_moving_between_replies, 60},
    {"every_function_sets_its_reason_on_failure_and_clears_it_on_success",
     test_every_function_sets_its_reason_on_failure_and_clears_it_on_success, 30},
    {"a_full_ring_says_how_full_it_is", test_a_full_ring_says_how_full_it_is, 30},
    {"version_macros_and_codes_agree_with_the_library", test_version_macros_and_codes_agree_with_the_library, 10},
    {"frame_fd_wakes_a_poll_loop_25_times_a_second_in_realtime",
     test_frame_fd_wakes_a_poll_loop_25_times_a_second_in_realtime, 30},
    {"frame_fd_drives_an_unpaced_reply_to_its_end", test_frame_fd_drives_an_unpaced_reply_to_its_end, 30},
    {"frame_fd_is_closed_when_destroy_returns", test_frame_fd_is_closed_when_destroy_returns, 30},
    {"reply_counts_count_an_interrupt_once_and_take_null", test_reply_counts_count_an_interrupt_once_and_take_null, 30},
    {"corrupt_avatar_files_are_refused_with_a_reason", test_corrupt_avatar_files_are_refused_with_a_reason, 60},
    {"ring_full_returns_minus2_and_queues_nothing", test_ring_full_returns_minus2_and_queues_nothing, 120},
    {"unpaced_speech_frames_equal_ceil_samples_over_640", test_unpaced_speech_frames_equal_ceil_samples_over_640, 120},
    {"unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio", test_unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio, 30},
    {"reply_kinds_read_idle_speech_ramp_idle", test_reply_kinds_read_idle_speech_ramp_idle, 90},
    {"reset_mid_reply_ramps_from_the_last_frame_shown", test_reset_mid_reply_ramps_from_the_last_frame_shown, 60},
    {"reset_while_idle_does_nothing", test_reset_while_idle_does_nothing, 30},
    {"end_utterance_ends_at_once_silence_ends_after_0_6_s", test_end_utterance_ends_at_once_silence_ends_after_0_6_s, 60},
    {"realtime_tight_loop_gets_at_most_25_frames_a_second", test_realtime_tight_loop_gets_at_most_25_frames_a_second, 30},
    {"realtime_caller_sleeping_40ms_gets_a_frame_each_call", test_realtime_caller_sleeping_40ms_gets_a_frame_each_call, 30},
    {"ramp_straight_into_new_speech_is_two_replies", test_ramp_straight_into_new_speech_is_two_replies, 60},
    {"set_mode_during_a_reply_loses_no_frame", test_set_mode_during_a_reply_loses_no_frame, 60},
    {"realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor", test_realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor, 30},
    {"realtime_reply_skips_late_frames_and_stays_on_its_audio", test_realtime_reply_skips_late_frames_and_stays_on_its_audio, 30},
    {"playout_position_skips_frames_already_heard", test_playout_position_skips_frames_already_heard, 30},
    {"playout_anchor_starts_a_reply_at_the_live_audio_position", test_playout_anchor_starts_a_reply_at_the_live_audio_position, 30},
    {"engines_are_independent", test_engines_are_independent, 30},
    {"take_frame_refuses_bad_arguments_and_a_short_info", test_take_frame_refuses_bad_arguments_and_a_short_info, 30},
    {"expression2_character_frames_and_records", test_expression2_character_frames_and_records, 60},
    {"expression2_refuses_the_other_kind_and_bad_arguments", test_expression2_refuses_the_other_kind_and_bad_arguments, 30},
    {"expression2_engine_container_and_staging", test_expression2_engine_container_and_staging, 60},
    {"expression2_destroy_stops_the_work", test_expression2_destroy_stops_the_work, 60},
    {"essence2_calls_take_an_expression2_handle_except_take_frame",
     test_essence2_calls_take_an_expression2_handle_except_take_frame, 60},
    {"expression2_calls_refuse_an_essence2_handle_with_a_reason", test_expression2_calls_refuse_an_essence2_handle_with_a_reason, 30},
    {"take_frame_records_a_reply_with_its_own_audio", test_take_frame_records_a_reply_with_its_own_audio, 60},
    {"audio_clock_pacing_shows_speech_frames_on_the_played_position",
     test_audio_clock_pacing_shows_speech_frames_on_the_played_position, 30},
    {"feed_refuses_bad_arguments_with_a_reason", test_feed_refuses_bad_arguments_with_a_reason, 30},
    {"feed_takes_a_whole_reply_beyond_the_ring_and_frames_carry_it_back",
     test_feed_takes_a_whole_reply_beyond_the_ring_and_frames_carry_it_back, 120},
    {"feed_float_at_48khz_is_resampled_once_by_the_library", test_feed_float_at_48khz_is_resampled_once_by_the_library, 60},
    {"reset_drops_fed_audio_waiting_beyond_the_ring", test_reset_drops_fed_audio_waiting_beyond_the_ring, 30},
    {"four_pushers_and_one_puller_share_a_handle", test_four_pushers_and_one_puller_share_a_handle, 120},
    {"random_calls_from_two_threads_get_documented_results", test_random_calls_from_two_threads_get_documented_results, 120},
    {"create_destroy_cycles_do_not_grow_memory", test_create_destroy_cycles_do_not_grow_memory, 120},
    {"quiesce_all_stops_eight_live_engines", test_quiesce_all_stops_eight_live_engines, 60},
    {"unpaced_output_is_deterministic_for_a_seed", test_unpaced_output_is_deterministic_for_a_seed, 90},
    {"set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own",
     test_set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own, 120},
    {"head_mode_frames_are_square", test_head_mode_frames_are_square, 30},
};

int main(int argc, char **argv) {
    int fork_each = 1, first_filter = argc;
    int a = 1;
    if (a < argc && strcmp(argv[a], "--no-fork") == 0) {
        fork_each = 0;
        a++;
    }
    if (a < argc) {
        struct stat st;
        if (strstr(argv[a], ".imx") || stat(argv[a], &st) == 0) {
            g_avatar = argv[a];
            a++;
        }
    }
    first_filter = a;
    struct stat st;
    if (stat(g_avatar, &st) != 0) {
        fprintf(stderr, "test_abi: avatar %s not found (usage: test_abi [--no-fork] [AVATAR.imx] [FILTER...])\n",
                g_avatar);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("test_abi: libessence2 %s, avatar %s\n", be_essence2_version(), g_avatar);
    return harness_main(tests, sizeof tests / sizeof tests[0], fork_each, argv + first_filter, argc - first_filter);
}
