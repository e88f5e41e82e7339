"""Critical and fumble texts for tables_app, written for this project (not copied
from any published table). Used by generate.py; numbers come from its formulas.

Critical lines: "Title | Text | tags [| condition]"; a condition starting with
"not " is the second branch of the band of the line above it.
Fumble lines: "Roll | Title | Text | Hits | Stun | Penalty | Effects".
"""

CRITICAL_TEXTS = {
    "Cut": """
Whistling miss | The edge hisses past an ear and bites only air. |
Snagged sleeve | The blade catches cloth and tears a loose flap from the sleeve. |
Grazing nick | A shallow nick across the knuckles, more sting than wound. |
Scratched jaw | The edge skates along the jaw and leaves a thin red line. |
Shallow slice | A quick slice opens the forearm; your foe hisses and gives ground. |
Torn jerkin | The stroke rips through leather and scores the ribs beneath. |
Thigh cut | A slanting cut across the thigh makes your foe's footing waver. |
Split brow | A split eyebrow weeps blood into your foe's lashes. |
Opened shoulder | The blade bites into the shoulder and comes away red. |
Forearm gash | A deep gash along the forearm; the grip loosens as blood wells up. |
Hamstring nick | A low stroke nicks the back of the knee and your foe starts to limp. |
Ribs laid open | A long cut lays the skin of the ribs open like a split sack. |
Hand slashed | The edge crosses the weapon hand and the weapon clatters away. | drop weapon
Belly wound | A sweeping cut across the belly folds your foe over the wound. |
Tendon parted | Steel parts the calf tendon and your foe drops to the ground. | prone
Sword arm ruined | Muscle and sinew part in the weapon arm; it hangs useless. | drop weapon, arm useless
Chest cleft | A diagonal cut through chest and collarbone sends your foe reeling. | knocked back
Helm sheared | The stroke shears the crest from the helm and rings off the steel. | | helm
Scalp flayed | The edge lays open the scalp and blood sheets into both eyes. | blinded 2 | not helm
Thigh to the bone | The blade opens the thigh to the bone and the leg gives way. | prone, leg useless
Artery opened | A severed artery in the arm spurts bright blood; everything falls from the hand. | drop weapon, prone
Under the jaw | The edge slips beneath the jaw; your foe chokes and sinks, dying. | prone, death in 6
Disembowelled | A terrible stroke opens the abdomen; your foe falls beyond saving. | prone, death in 3
Beheaded | One clean stroke takes the head from the shoulders. | instant death
""",
    "Impact": """
Glancing tap | The blow glances off and your foe barely flinches. |
Rattled | A thump on the shoulder rattles teeth and little else. |
Bruised knuckles | The strike mashes your foe's knuckles against their own grip. |
Thumped ribs | A dull thump to the ribs drives out a grunt. |
Jarred elbow | The elbow takes the blow and tingles down to the fingertips. |
Knee knock | A knock to the kneecap makes your foe hop and wince. |
Winded | A blow to the gut empties your foe's lungs in one long wheeze. |
Ringing helm | The blow clangs off the helm and leaves its wearer blinking. | | helm
Cracked crown | A crack on the bare head sets your foe's eyes swimming. | | not helm
Crushed hip | The hip takes a crushing blow and every step now hurts. |
Staggered | A heavy hit to the chest staggers your foe two paces back. | knocked back
Forearm cracked | A bone in the forearm cracks audibly and the weapon falls. | drop weapon
Collarbone snapped | The collarbone snaps and the whole shoulder sags. | drop weapon, arm useless
Bowled over | A sweeping blow to the legs bowls your foe over. | prone
Dented helm | The helm caves in a thumb's depth; your foe reels but stays up. | knocked back | helm
Temple struck | A blow to the temple drops your foe senseless. | prone, unconscious | not helm
Ribs stove in | Several ribs give way at once and breath becomes a wet rasp. | prone
Shattered knee | The knee folds the wrong way with a sickening pop. | prone, leg useless
Helm torn away | The helm is torn off and spins away; your foe falls dazed and bloodied. | prone | helm
Fractured skull | The skull fractures; your foe collapses and will not rise soon. | prone, unconscious | not helm
Spine jarred | A crushing blow across the back breaks something vital. | prone, death in 6
Chest caved | The chest caves under the blow; your foe falls fighting for air. | prone, death in 3
Crushing end | A blow of dreadful force ends the fight and your foe together. | instant death
""",
    "Pierce": """
Point deflected | The point skips off a buckle and finds nothing. |
Pinprick | A pinprick on the wrist draws a single bead of blood. |
Pricked hip | The point pricks the hip and your foe jerks away. |
Clipped ear | The tip clips an earlobe; it stings far more than it harms. |
Shallow puncture | A shallow puncture in the upper arm begins to seep. |
Stuck in the side | The point sinks a finger's depth into your foe's side. |
Pierced calf | The calf is pierced through and your foe stumbles. |
Lodged in shoulder | The point lodges in the shoulder muscle and twists free. |
Punctured hand | The hand is pinned for a heartbeat and the grip fails. | drop weapon
Thigh skewered | The thigh is skewered and blood runs freely down the leg. |
Lung nicked | The point slides off a rib and nicks a lung; each breath whistles. |
Foot nailed | The foot is nailed to the ground; your foe topples as it tears free. | prone
Elbow joint | The point enters the elbow joint and the arm locks straight. | drop weapon, arm useless
Gut stab | A deep stab to the gut folds your foe in half. |
Kidney strike | A thrust into the lower back makes your foe arch and fall. | prone
Through the knee | The point goes clean through the knee. | prone, leg useless
Visor struck | The point screeches into the visor slit but the steel turns it. | | helm
Eye pierced | The point takes an eye and your foe reels away screaming. | blinded 3 | not helm
Arm pinned | The arm is pinned to the ribs and the weapon is torn loose. | disarmed
Thigh vessel | A thrust opens the great vessel of the thigh. | prone
Through the lung | The point passes through a lung; your foe sinks, coughing red. | prone, drop weapon
Heart grazed | The point scrapes the heart; your foe has moments left. | prone, death in 3
Heart pierced | The thrust finds the heart and your foe dies where they stand. | instant death
""",
    "Grapple": """
Slipped grip | The hold slides off a sweaty wrist. |
Fumbled hold | Fingers catch a belt and lose it again. |
Sleeve caught | A hand closes on the sleeve and tugs your foe off balance. |
Arm clutched | Your foe's arm is clutched and wrenched aside. |
Tangled legs | Legs tangle and your foe hops to stay upright. |
Wrist twisted | A twist of the wrist forces the weapon point down. |
Bear hug | A crushing hug squeezes the air out of your foe. |
Headlock | An arm locks around the neck and slowly tightens. |
Weapon wrenched | The weapon is wrenched from your foe's fingers. | disarmed
Tripped | A hooked ankle sends your foe sprawling. | prone
Arms pinned | Both arms are pinned to the sides and the weapon slips away. | disarmed
Thrown down | Your foe is hoisted high and slammed to the ground. | prone, knocked back
Shoulder wrenched | The shoulder pops from its socket with a wet click. | drop weapon, arm useless
Choked | A forearm across the throat leaves your foe gasping. |
Slammed | Your foe is dashed against the ground, head first. | prone
Face down | Pinned face down, your foe can only thrash. | prone, disarmed
Elbow broken | The elbow is bent backward until it breaks. | drop weapon, arm useless
Strangled | A grip on the throat squeezes your foe into darkness. | prone, unconscious
Crushed ribs | Ribs crack inward under the grip; your foe will not last. | prone, death in 6
Neck snapped | A savage twist breaks the neck. | instant death
""",
    "Fire": """
Warm gust | Heat washes over your foe and fades. |
Singed hair | A lick of flame curls the hair on one arm. |
Smoking cloak | The cloak smoulders and your foe slaps at it. |
Scorched hand | The hand is scorched pink and starts to blister. |
Blistered face | A flare blisters cheek and brow. |
Smoke in eyes | Stinging smoke drives tears down your foe's face. |
Burning sleeve | A sleeve catches and burns before it is beaten out. |
Seared thigh | The thigh is seared through the cloth. |
Heat flash | A flash of heat makes your foe recoil with the guard dropped. |
Hair alight | Your foe's hair goes up in a crackling halo. |
Blinding flare | A white flare scalds both eyes. | blinded 2
Scalded arm | The weapon arm is scalded and the grip opens. | drop weapon
Blast | A blast of heat throws your foe backward. | knocked back
Clothes ablaze | The clothes catch fully; your foe rolls on the ground in panic. | prone
Glowing grip | The weapon grip glows hot and is flung away. | disarmed
Charred legs | Both legs are charred and will not hold. | prone, leg useless
Searing chest | Flesh on the chest chars black and cracks. |
Face burned | The face is badly burned and the eyes swell shut. | blinded 3
Engulfed | Fire swallows your foe whole for a long moment. | prone
Lungs scorched | A breath of fire scorches the lungs. | prone, death in 6
Living torch | Your foe burns like a torch and falls. | prone, death in 3
Ash | Nothing is left but a blackened shape and drifting ash. | instant death
""",
    "Frost": """
Chill breath | A cold breath fogs on your foe's gear. |
Rimed cloak | Frost creeps over the cloak with a faint crackle. |
Numb fingers | The fingers go white and clumsy. |
Nipped ears | Ears and nose sting bitterly in the sudden cold. |
Stiff knee | Cold sinks into the knee and slows every step. |
Ice crust | Ice crusts over the chest and bites through the clothing. |
Frozen breath | Your foe's breath freezes in the throat. |
Numbed arm | The weapon arm goes numb to the elbow. |
Black ice | The ground ices over; your foe slips and falls. | prone
Frozen grip | The hand freezes to the grip, then the grip fails. | drop weapon
Rimed eyes | Frost films over both eyes. | blinded 2
Shard storm | A spray of ice shards slashes face and hands. |
Locked elbow | The elbow freezes stiff and the arm will not bend. | arm useless
Cold shock | Cold strikes the heart like a fist and your foe staggers. | knocked back
Legs frozen | The legs freeze to the knee and your foe topples. | prone, leg useless
Brittle blade | Your foe's weapon freezes and snaps in two. | disarmed
Deep frostbite | Flesh blackens with cold across the chest. |
Frozen lungs | The air in the lungs turns to needles of ice. | prone
Slowing heart | The heart slows to a crawl and your foe slumps. | prone, unconscious, death in 6
Frozen solid | Your foe freezes solid in a stumbling pose. | death in 3
Shattered | Frozen through, your foe shatters on striking the ground. | instant death
""",
    "Lightning": """
Static crackle | Hair stands on end and the air smells of storm. |
Tingling | A tingle runs down your foe's spine. |
Twitching hand | The hand twitches and the guard wavers. |
Spark burn | A spark leaves a small black burn on the skin. |
Jolted | A jolt rattles your foe's teeth. |
Muscles lock | Every muscle locks for a heartbeat. |
Dazzled | A blue-white flash leaves spots dancing before the eyes. |
Arm spasm | The arm spasms wildly and the guard is lost. |
Legs buckle | The legs buckle under a surging shock. | prone
Weapon flung | A convulsion throws the weapon from your foe's hand. | drop weapon
Thunderclap | A thunderclap deafens your foe and hurls them back. | knocked back
Armor conducts | The armor carries the bolt everywhere at once; its wearer convulses and falls. | prone, drop weapon | metal armor
Grounded | Most of the charge runs to the ground through your foe's boots. | | not metal armor
Arc across the eyes | An arc leaps across the face and blinds. | blinded 2
Seizure | Your foe seizes, drops everything and falls. | prone, drop weapon
Burned through | Entry and exit burns smoke on chest and heel. |
Heart stutters | The heart stutters and your foe collapses. | prone, unconscious
Nerves burned | Nerves burn along one side; arm and leg go limp. | prone, arm useless
Heart stopped | The heart stops; only quick help will start it again. | prone, death in 6
Smoking collar | Smoke pours from your foe's collar as they fall. | prone, death in 3
Struck down | A blinding bolt leaves only a smoking body. | instant death
""",
}

FUMBLE_TEXTS = {
    "Melee Fumbles": """
01-15 | Clumsy swing | You overreach and lose the rhythm of the fight. | 0 | | |
16-30 | Loose grip | The weapon turns in your hand and you regain it awkwardly. | 0 | | -5 |
31-45 | Stumble | Your feet tangle and you lurch sideways, wide open. | 0 | 1 | |
46-60 | Slipping hand | Sweat betrays you and the weapon slides out of your grip. | 0 | | | drop weapon
61-75 | Overbalanced | You swing far too wide, go down on one knee, then flat. | 0 | 1 | | prone
76-85 | Wrenched wrist | You jar your wrist on the swing and let go. | 2 | 1 | -10 | drop weapon
86-95 | Self-inflicted | Your backswing clips your own leg. | 4 | 1 | -5 |
96-105 | Flung away | The weapon flies from your hand and skids out of reach as you fall. | 0 | 2 | | drop weapon, prone
106-120 | Snapped | The weapon strikes stone at a bad angle and breaks. | 0 | 2 | | weapon breaks
121+ | Disaster | You trip over your own weapon, break it and hit the ground hard. | 6 | 3 | -10 | weapon breaks, prone
""",
    "Missile Fumbles": """
01-20 | Fumbled shot | The shot slips from your fingers before it is loosed. | 0 | | |
21-40 | Lost aim | Something snags at the last moment and your aim is gone. | 0 | | -5 |
41-55 | Spilled supply | Ammunition or focus slips and you waste a moment recovering. | 0 | 1 | |
56-70 | Wild release | The shot goes wild and hums past a friend's head. | 0 | 1 | -5 |
71-85 | Backlash | The release whips back and leaves your forearm raw. | 2 | 1 | -5 |
86-100 | Numb fingers | Your weapon slips from stinging fingers. | 0 | 1 | | drop weapon
101-110 | Tangled | You tangle in your own gear and go down. | 0 | 2 | | prone
111-120 | Snapped | A string, cord or focus cracks under the strain. | 0 | 1 | | weapon breaks
121+ | Shattering recoil | The weapon breaks apart and lashes you across the face. | 5 | 2 | -10 | weapon breaks, prone
""",
}

# ---------------------------------------------------------------- printed layouts
# The `Printed` ruleset (printed.xlsx): critical tables with a column per
# severity. One line per roll band, the five cells A | B | C | D | E, prose
# only: generate.py appends each cell's effects in printed notation. `{}`,
# `{-}` and `{+}` put the cell's effects (weaker, stronger) where written
# instead, for cells with branches; a cell saying `instant death` gets none.
PRINTED_CRITICAL_TEXTS = {
    "Hacking": """
Weak stroke, foe unharmed. | Blade skips off the belt. | Glancing cut to the hip. | Scraped shoulder. | Nick on the cheek, foe flinches.
Cloak sliced. | Light cut on the wrist. | Thin cut along the arm. | Cut across the back of the hand. | Sharp cut under the ribs.
Foe steps back from the edge. | Shallow cut to the thigh. | Cut to the upper arm. | Slice across the chest. | Deep cut in the side.
Scratch on the shin. | Edge opens the forearm. | Gash along the calf. | w/ leg armor: Greave takes the stroke {-}. w/o leg armor: Calf laid open {+}. | Long gash across the back.
Cut to the knuckles. | Cut to the shoulder. | Blade bites the hip. | Thigh cut to the bone. | Sword arm slashed; grip falters.
Foe spins away, bleeding. | Cut across the ribs. | Forearm tendons cut. | Back of the knee cut; foe kneels. | With helm: Helm strap cut, helm falls {-}. Without helm: Scalp opened to the bone {+}.
Cut to the neck, shallow. | Stroke opens the belly skin. | Deep cut to the thigh. | Weapon hand cut; fingers useless. | Shoulder cleft deep.
Slash to the face. | Hamstring nicked. | Chest opened. | Abdomen slit. | Arm severed at the elbow.
Ear cut away. | Artery in the arm cut. | Leg tendons cut; foe falls. | Neck cut; foe dies in 12 rounds. | Throat cut; foe dies in 6 rounds.
Hand cut to the bone. | Collarbone split. | Side opened to the lung; foe dies in 9 rounds. | Spine cut; foe dies in 3 rounds. | Head struck from the shoulders. instant death
""",
    "Mauling": """
Blow glances off. | Dull thud on the arm. | Bruised hip. | Knock to the shoulder. | Jarring blow to the chest.
Foe sways. | Knuckles bruised. | Thump to the ribs. | Foe knocked sideways. | Knee struck hard.
Blow to the forearm. | Hip battered. | Jab to the gut; foe doubles over. | Shoulder jarred numb. | Blow to the back; foe stumbles.
Shin knocked. | Chest thumped; breath lost. | Elbow cracked. | Ribs cracked. | Heavy blow staggers foe.
Thigh bruised. | Wrist jarred; grip loosens. | With helm: Helm dented, foe dazed {-}. Without helm: Crack to the skull {+}. | Kneecap broken. | Collarbone broken.
Foot stamped. | Blow to the kidneys. | Forearm broken. | Hip shattered; foe falls. | Blow to the spine; legs numb.
Blow to the temple; foe reels. | Shoulder knocked out of joint. | Shin broken. | Jaw broken. | With helm: Helm crushed in {-}. Without helm: Skull fractured {+}.
Chest struck; foe gasps. | Ribs broken. | Both arms battered numb. | Breastbone cracked. | Pelvis broken; foe collapses.
Nose broken. | Knee crushed; foe drops. | Back broken. | Chest caved in; foe dies in 12 rounds. | Neck broken; foe dies in 3 rounds.
Weapon arm broken. | Blow to the throat. | Skull cracked open; foe dies in 9 rounds. | Head crushed; foe dies in 2 rounds. | Head smashed flat. instant death
""",
    "Skewering": """
Point skids aside. | Prick on the arm. | Point catches cloth. | Jab to the hip. | Shallow stab in the thigh.
Foe twists away. | Point grazes the side. | Stab to the upper arm. | Point sinks into the shoulder. | Stab under the arm.
Prick to the calf. | Stab to the thigh. | Point in the forearm. | With shield: Shield arm pinned {-}. Point drives deep into the side {+}. | Stab in the belly.
Point in the foot. | Stab to the hand. | Stab through the calf. | Point lodges in the hip. | Thrust between the ribs.
Point cuts the ear. | Stab to the buttock. | Shoulder pierced. | Thigh run through. | Lung nicked; foe coughs blood.
Stab to the knee. | Upper arm run through. | Stab in the lower back. | With shield: Point through the shield into the arm {-}. Stab in the gut {+}. | Kidney pierced.
Point scrapes the ribs. | Hand pinned. | Stab into the groin. | Lung pierced. | Point in the eye.
Stab in the neck, shallow. | Foot pinned; foe falls. | Elbow pierced. | Point in the liver. | Belly run through.
Point in the cheek. | Thigh artery nicked. | Lung run through. | Heart grazed; foe dies in 9 rounds. | Throat pierced; foe dies in 4 rounds.
Stab in the wrist. | Point in the knee joint. | Gut run through; foe dies in 12 rounds. | Point in the brain; foe dies in 1 round. | Heart pierced. instant death
""",
}

# A fumble table by weapon category: "Roll | 1HE | 1HC | 2H | MIS", effects as printed.
PRINTED_FUMBLE_TEXTS = {
    "Weapon Mishaps": """
01-20 | Loses the rhythm of the swing. | Swings at empty air. | Heavy swing pulls wide. | Shot goes high.
21-40 | Grip slips; recovers. π | Handle turns in the hand. π | Overswings and wobbles. 2π | Nocks clumsily. (π-10)
41-55 | Stumbles on loose ground. 1∑ | Strikes own shield rim. 1∑ | Haft catches the ground. 1∑ – (-10) | Drops the missile. (-10)
56-70 | Blade turns flat, wrist twisted. +2H – 1∑ | Clubs own knee. +3H – 1∑ | Wrenches the back. +2H – 2∏ – (-10) | String slaps the forearm. +2H
71-80 | Drops the weapon. 2∑ | Weapon flies from the hand. 2∑ | Loses footing and sits down hard. 2∑∏ | Missile snaps. 1∑
81-90 | Cuts own leg. +4H – 1∫ | Hits own foot. +4H – 2∑ | Strikes an ally nearby. 2∑ – (+10) | Shot strikes an ally. 1∑∏
91-100 | Falls on own blade. +6H – 2∑∏ – 1∫ | Trips and falls. +3H – 3∑ | Weapon breaks on the swing. 3∑ – (-20) | Bow breaks; lash across the face. +4H – 2∑∏
101+ | Impales own thigh. +8H – 3∑∏ – 2∫ – (-20) | Knocks self senseless. +6H – 4∑∏ | Falls and breaks an arm. +7H – 3∑∏ – (-30) | Bow snaps in hand. +6H – 3∑ – 1∫ – (-15)
""",
}
