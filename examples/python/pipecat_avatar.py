"""The avatar in a Pipecat pipeline: put Essence2VideoProcessor after the TTS service.

    pip install "$(ls dist/essence2-*.whl)[pipecat]"

The processor takes the TTS audio, and sends image frames (25 a second, RGB) with the audio in step to the
output transport; between replies the face idles, and an interruption eases it to rest. Replace the transport
and services with the ones your bot uses (their keys and options are yours to give).
"""

from pipecat.pipeline.pipeline import Pipeline

from essence2.pipecat import Essence2VideoProcessor


def build_pipeline(transport, stt, llm, tts, context_aggregator) -> Pipeline:
    """A voice bot pipeline with the avatar between the TTS service and the output transport. The transport's
    output must enable video (for example ``video_out_enabled=True``, ``video_out_width=512``,
    ``video_out_height=600``, the avatar's size) and audio out."""
    avatar = Essence2VideoProcessor(avatar="grace-hopper")
    return Pipeline([
        transport.input(),
        stt,
        context_aggregator.user(),
        llm,
        tts,
        avatar,
        transport.output(),
        context_aggregator.assistant(),
    ])
