/*
 * tests.h - the ABI tests, one function each, by the file that holds them (test_main.c lists them in its
 * table, in this order).
 */
#ifndef ESSENCE2_TEST_TESTS_H
#define ESSENCE2_TEST_TESTS_H

/* test_arguments.c */
void test_version_and_strerror_are_static_strings(void);
void test_null_handle_is_refused_by_every_function(void);
void test_unknown_handle_is_refused_by_every_function(void);
void test_destroyed_handle_is_refused_and_double_destroy_fails(void);
void test_create_rejects_bad_arguments_and_sets_out_to_null(void);
void test_last_error_and_last_refusal_follow_their_contract(void);
void test_api_secret_set_and_clear_and_sessions_still_start(void);
void test_configured_service_refuses_without_secret_or_answer(void);
void test_download_avatar_checks_arguments_and_says_why(void);
void test_short_buffers_negative_counts_and_bad_modes_are_refused(void);
void test_fresh_engine_reports_no_frame_yet_and_is_healthy(void);
void test_idle_frames_keep_moving_between_replies(void);

/* test_reasons.c */
void test_every_function_sets_its_reason_on_failure_and_clears_it_on_success(void);
void test_a_full_ring_says_how_full_it_is(void);
void test_version_macros_and_codes_agree_with_the_library(void);

/* test_events.c */
void test_frame_fd_wakes_a_poll_loop_25_times_a_second_in_realtime(void);
void test_frame_fd_drives_an_unpaced_reply_to_its_end(void);
void test_frame_fd_is_closed_when_destroy_returns(void);
void test_reply_counts_count_an_interrupt_once_and_take_null(void);

/* test_avatar_files.c */
void test_corrupt_avatar_files_are_refused_with_a_reason(void);

/* test_replies.c */
void test_ring_full_returns_minus2_and_queues_nothing(void);
void test_unpaced_speech_frames_equal_ceil_samples_over_640(void);
void test_unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio(void);
void test_reply_kinds_read_idle_speech_ramp_idle(void);
void test_reset_mid_reply_ramps_from_the_last_frame_shown(void);
void test_reset_while_idle_does_nothing(void);
void test_end_utterance_ends_at_once_silence_ends_after_0_6_s(void);
void test_realtime_tight_loop_gets_at_most_25_frames_a_second(void);
void test_realtime_caller_sleeping_40ms_gets_a_frame_each_call(void);
void test_ramp_straight_into_new_speech_is_two_replies(void);
void test_set_mode_during_a_reply_loses_no_frame(void);
void test_realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor(void);
void test_realtime_reply_skips_late_frames_and_stays_on_its_audio(void);
void test_playout_position_skips_frames_already_heard(void);
void test_playout_anchor_starts_a_reply_at_the_live_audio_position(void);
void test_engines_are_independent(void);

/* test_frame_record.c */
void test_take_frame_refuses_bad_arguments_and_a_short_info(void);
void test_expression2_character_frames_and_records(void);
void test_expression2_refuses_the_other_kind_and_bad_arguments(void);
void test_expression2_engine_container_and_staging(void);
void test_expression2_destroy_stops_the_work(void);
void test_essence2_calls_take_an_expression2_handle_except_take_frame(void);
void test_expression2_calls_refuse_an_essence2_handle_with_a_reason(void);
void test_take_frame_records_a_reply_with_its_own_audio(void);
void test_audio_clock_pacing_shows_speech_frames_on_the_played_position(void);
void test_feed_refuses_bad_arguments_with_a_reason(void);
void test_feed_takes_a_whole_reply_beyond_the_ring_and_frames_carry_it_back(void);
void test_feed_float_at_48khz_is_resampled_once_by_the_library(void);
void test_reset_drops_fed_audio_waiting_beyond_the_ring(void);

/* test_threads.c */
void test_four_pushers_and_one_puller_share_a_handle(void);
void test_random_calls_from_two_threads_get_documented_results(void);
void test_create_destroy_cycles_do_not_grow_memory(void);
void test_quiesce_all_stops_eight_live_engines(void);

/* test_determinism.c */
void test_unpaced_output_is_deterministic_for_a_seed(void);
void test_set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own(void);
void test_head_mode_frames_are_square(void);

#endif /* ESSENCE2_TEST_TESTS_H */
