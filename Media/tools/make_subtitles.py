#!/usr/bin/env python3
"""Writes the demo subtitle files under Media/subtitles/.

The .srt files are committed; run this again only after editing the story lines below:
    python3 Media/tools/make_subtitles.py
Story lines are spread evenly over an episode; between them come ambient captions, so
there is a cue every few seconds from start to end.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "subtitles")


def stamp(t):
    ms = int(round(t * 1000))
    h, ms = divmod(ms, 3600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02}:{m:02}:{s:02},{ms:03}"


def write(path, cues):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i, (start, end, text) in enumerate(cues, 1):
            f.write(f"{i}\n{stamp(start)} --> {stamp(end)}\n{text}\n\n")


def story(duration, every, lines, ambient):
    slots = int((duration - 1) // every)
    cues = []
    step = slots / len(lines)
    story_at = {int(i * step): line for i, line in enumerate(lines)}
    a = 0
    for k in range(slots):
        start = 1 + k * every
        end = min(start + every * 0.8, duration - 0.1)
        if k in story_at:
            text = story_at[k]
        else:
            text = ambient[a % len(ambient)]
            a += 1
        cues.append((start, end, text))
    return cues


HARBOUR_AMBIENT = [
    "[gulls overhead]", "[rope creaks against the bollard]", "[waves slap the quay]",
    "[a bell buoy, far out]", "[wind in the rigging]", "[footsteps on wet stone]",
]
FERRY_AMBIENT = [
    "[engine hum]", "[the deck rolls gently]", "[a door bangs below]", "[rain on the windows]",
    "[ferry horn, distant]", "[cups rattle in the cafe]", "[announcement, muffled]",
    "[wind across the car deck]",
]

HARBOUR = {
    "s1e1": (150, [
        "MARA: The lamp went out again last night.",
        "TOM: Third time this week. Somebody's at it.",
        "MARA: Or something. The wiring's older than you.",
        "TOM: Everything in this town is older than me.",
        "MARA: Hand me the torch. Mind the ladder.",
        "TOM: There's salt in the fuse box. Fresh salt.",
        "MARA: Salt doesn't climb stairs on its own.",
        "TOM: Then who's been up here?",
        "MARA: Look. Boot prints. Small ones.",
        "TOM: A child? Out here at night?",
        "MARA: We'll wait for dark and see.",
    ]),
    "s1e2": (220, [
        "TOM: Nine o'clock. Nothing yet.",
        "MARA: Patience. The tide turns at ten.",
        "TOM: What's the tide got to do with a lamp?",
        "MARA: Everything, on this coast.",
        "TOM: Did you hear that? On the steps.",
        "MARA: Stay low. Don't switch on the torch.",
        "GIRL: Is anyone up there?",
        "MARA: We are. Come up slowly.",
        "GIRL: Please don't tell my father.",
        "TOM: Tell him what, exactly?",
        "GIRL: I turn the light off so the boat can land.",
        "MARA: Which boat?",
        "GIRL: The one with no lights. It comes at the turn.",
        "TOM: Smugglers. In Kettle Cove. Of course.",
        "MARA: Go home, love. We'll sort this out.",
    ]),
    "s1e3": (310, [
        "MARA: Tonight we leave the lamp on.",
        "TOM: And when they can't land?",
        "MARA: Then they'll come up here to ask why.",
        "TOM: That's what I'm afraid of.",
        "MARA: The harbourmaster owes me a favour.",
        "TOM: He owes everyone a favour.",
        "MARA: Ten o'clock. There she is. No lights.",
        "TOM: She's turning. She's seen the lamp.",
        "MARA: Signal the pier. Three short, one long.",
        "HARBOURMASTER: I see her. Boats are out.",
        "TOM: They're running for the point!",
        "MARA: Not past the bell buoy they aren't.",
        "HARBOURMASTER: Got them. Crates of... tea?",
        "TOM: All this for tea?",
        "MARA: Untaxed tea. Her father's tea.",
        "GIRL: Is he in trouble?",
        "MARA: A bit. Less than he'd be without you.",
        "TOM: The lamp stays on from now on.",
        "MARA: Every night. That's the job.",
        "GIRL: Can I help keep it?",
        "MARA: Bring a flask. It's a long watch.",
    ]),
}

FERRY = {
    "e1": (720, [
        "ANNOUNCER: The 23:40 to Islay is now boarding.",
        "IVO: One ticket. No car. Just me.",
        "CLERK: Cabin or lounge?",
        "IVO: Lounge. I won't sleep anyway.",
        "JUNE: You're in my seat.",
        "IVO: They're not numbered.",
        "JUNE: I've had that seat for eleven years.",
        "IVO: Then you'll know a better one.",
        "JUNE: Fine. The window fogs on that side anyway.",
        "IVO: Do you make this crossing a lot?",
        "JUNE: Every Thursday. I deliver the post nobody else will.",
        "IVO: What post is that?",
        "JUNE: Letters to people who aren't there any more.",
        "IVO: That sounds like a ghost story.",
        "JUNE: It's a filing problem.",
        "IVO: I'm looking for my brother. He worked this boat.",
        "JUNE: Name?",
        "IVO: Pieter Hale. Deckhand. Three years ago.",
        "JUNE: ...I've got a letter for a P. Hale.",
        "IVO: From who?",
        "JUNE: Doesn't say. It never does.",
        "ANNOUNCER: We are now under way. The cafe is open.",
    ]),
    "e2": (990, [
        "IVO: Open it.",
        "JUNE: It's not addressed to you.",
        "IVO: He's not here to read it.",
        "JUNE: That's rather the point of my job.",
        "IVO: Then tell me who sends them.",
        "JUNE: They come in a sack marked 'crew'. No stamp.",
        "IVO: Who gives you the sack?",
        "JUNE: The purser. Grey man. Never smiles.",
        "PURSER: Is there a problem, Miss Tully?",
        "JUNE: No problem, Mr Vance.",
        "PURSER: Passengers aren't allowed below the car deck.",
        "IVO: I wasn't going below the car deck.",
        "PURSER: People say that.",
        "JUNE: He's lying, by the way. The purser.",
        "IVO: How can you tell?",
        "JUNE: He's never once been polite to me.",
        "IVO: So what's below the car deck?",
        "JUNE: The old crew quarters. Sealed since the fire.",
        "IVO: What fire?",
        "JUNE: The one three years ago.",
        "IVO: Nobody told us about a fire.",
        "JUNE: Nobody tells anyone anything on this boat.",
        "IVO: I'm going down there.",
        "JUNE: Then I'm coming. Someone has to carry the torch.",
    ]),
    "e3": (1305, [
        "JUNE: Mind the hatch. It sticks.",
        "IVO: It smells of smoke still.",
        "JUNE: Of smoke and engine oil. Look at the bunks.",
        "IVO: Someone's been sleeping here.",
        "JUNE: Recently. That blanket's dry.",
        "IVO: Pieter? Pieter, it's Ivo.",
        "PIETER: ...You shouldn't have come.",
        "IVO: Three years. Three years, and you're here?",
        "PIETER: I saw what started the fire. Vance did.",
        "JUNE: The purser.",
        "PIETER: He was burning the manifests. The real ones.",
        "IVO: Why not go to the police?",
        "PIETER: And say what? Everyone thinks I'm dead.",
        "JUNE: The letters. You wrote them.",
        "PIETER: To myself. So someone would ask one day.",
        "IVO: Someone did.",
        "PURSER: I did warn you, Miss Tully.",
        "JUNE: And I've never once listened, Mr Vance.",
        "PURSER: Give me the letters.",
        "IVO: They're already in the post. Real post, this time.",
        "PURSER: You can't prove a thing.",
        "PIETER: I can. I kept the manifests he didn't burn.",
        "ANNOUNCER: We are arriving at Port Askaig.",
        "JUNE: Police launch is on the quay. I rang ahead.",
        "IVO: How?",
        "JUNE: Ship's radio. I deliver the post. I know everyone.",
        "PIETER: Thank you. Both of you.",
        "JUNE: Next Thursday, same seat. Bring tea.",
    ]),
}


def pattern(duration):
    cues = []
    for s in range(int(duration)):
        text = f"SYNC {s // 60}:{s % 60:02}"
        if s % 10 == 0:
            text += "  ** BEEP **"
        cues.append((s, s + 0.9, text))
    return cues


def main():
    for ep, (dur, lines) in HARBOUR.items():
        write(os.path.join(OUT, "harbour", ep + ".srt"), story(dur, 4, lines, HARBOUR_AMBIENT))
    for ep, (dur, lines) in FERRY.items():
        write(os.path.join(OUT, "ferry", ep + ".srt"), story(dur, 6, lines, FERRY_AMBIENT))
    write(os.path.join(OUT, "pattern", "sync.srt"), pattern(300))


if __name__ == "__main__":
    main()
