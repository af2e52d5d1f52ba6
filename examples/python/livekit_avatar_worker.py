"""An avatar worker for LiveKit Agents: joins the room, receives the agent's speech as a data stream, and
publishes the avatar's video with the speech audio in step (the agents framework's AvatarRunner).

    pip install "$(ls dist/essence2-*.whl)[livekit]"
    LIVEKIT_URL=wss://... LIVEKIT_TOKEN=... python examples/python/livekit_avatar_worker.py

The agent side sends its audio to this participant with ``DataStreamAudioOutput`` (see the LiveKit Agents
documentation on avatar workers). No LiveKit server is reachable from the machine this project is built on: the
generator is tested in-process against the framework's types (python/tests/test_livekit.py), this worker is not.
"""

from __future__ import annotations

import asyncio
import os
import sys

from livekit import rtc
from livekit.agents.voice.avatar import AvatarRunner, DataStreamAudioReceiver

from essence2.livekit import Essence2VideoGenerator


async def main() -> int:
    url, token = os.environ.get("LIVEKIT_URL"), os.environ.get("LIVEKIT_TOKEN")
    if not url or not token:
        print("livekit_avatar_worker: set LIVEKIT_URL and LIVEKIT_TOKEN (a token for the avatar's identity)",
              file=sys.stderr)
        return 2
    room = rtc.Room()
    await room.connect(url, token)
    generator = Essence2VideoGenerator(avatar=os.environ.get("ESSENCE2_AVATAR", "grace-hopper"))
    runner = AvatarRunner(room, audio_recv=DataStreamAudioReceiver(room), video_gen=generator,
                          options=generator.avatar_options())
    try:
        await runner.start()
        await runner.wait_for_complete()
    finally:
        await runner.aclose()
        await generator.aclose()
        await room.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
