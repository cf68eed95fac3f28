// Package gamemsg holds the Teeworlds 0.7.5 game-layer messages (spec net.md
// A5.2, the NETMSGTYPE_* list): their ids, one Go struct per message, and
// Encode/Decode with the receive-side range checks the 0.7.5 client and server
// apply (SecureUnpackMsg). A message that fails a check is dropped entirely by
// the reference programs, so Encode refuses to write one and Decode reports it.
//
// The package does no I/O and has no wire code of its own: it writes fields
// through a Writer and reads them through a Reader, which netproto's Packer and
// Unpacker satisfy. The message header varint ((id<<1)|system flag) is written
// by Encode; on the receiving side the caller reads it and passes the id to
// Decode (or calls the Decode method of the concrete type).
package gamemsg

// Game message ids (net.md A5.2). Game messages travel with system flag 0, so
// the header varint is id<<1.
const (
	MsgInvalid             = 0  // NETMSG_INVALID, never sent
	MsgSvMotd              = 1  // NETMSGTYPE_SV_MOTD
	MsgSvBroadcast         = 2  // NETMSGTYPE_SV_BROADCAST
	MsgSvChat              = 3  // NETMSGTYPE_SV_CHAT
	MsgSvTeam              = 4  // NETMSGTYPE_SV_TEAM
	MsgSvKillMsg           = 5  // NETMSGTYPE_SV_KILLMSG
	MsgSvTuneParams        = 6  // NETMSGTYPE_SV_TUNEPARAMS
	MsgSvExtraProjectile   = 7  // NETMSGTYPE_SV_EXTRAPROJECTILE, unused by 0.7.5
	MsgSvReadyToEnter      = 8  // NETMSGTYPE_SV_READYTOENTER
	MsgSvWeaponPickup      = 9  // NETMSGTYPE_SV_WEAPONPICKUP
	MsgSvEmoticon          = 10 // NETMSGTYPE_SV_EMOTICON
	MsgSvVoteClearOptions  = 11 // NETMSGTYPE_SV_VOTECLEAROPTIONS
	MsgSvVoteOptionListAdd = 12 // NETMSGTYPE_SV_VOTEOPTIONLISTADD
	MsgSvVoteOptionAdd     = 13 // NETMSGTYPE_SV_VOTEOPTIONADD
	MsgSvVoteOptionRemove  = 14 // NETMSGTYPE_SV_VOTEOPTIONREMOVE
	MsgSvVoteSet           = 15 // NETMSGTYPE_SV_VOTESET
	MsgSvVoteStatus        = 16 // NETMSGTYPE_SV_VOTESTATUS
	MsgSvServerSettings    = 17 // NETMSGTYPE_SV_SERVERSETTINGS
	MsgSvClientInfo        = 18 // NETMSGTYPE_SV_CLIENTINFO
	MsgSvGameInfo          = 19 // NETMSGTYPE_SV_GAMEINFO
	MsgSvClientDrop        = 20 // NETMSGTYPE_SV_CLIENTDROP
	MsgSvGameMsg           = 21 // NETMSGTYPE_SV_GAMEMSG
	MsgDeClientEnter       = 22 // NETMSGTYPE_DE_CLIENTENTER, demo only
	MsgDeClientLeave       = 23 // NETMSGTYPE_DE_CLIENTLEAVE, demo only
	MsgClSay               = 24 // NETMSGTYPE_CL_SAY
	MsgClSetTeam           = 25 // NETMSGTYPE_CL_SETTEAM
	MsgClSetSpectatorMode  = 26 // NETMSGTYPE_CL_SETSPECTATORMODE
	MsgClStartInfo         = 27 // NETMSGTYPE_CL_STARTINFO
	MsgClKill              = 28 // NETMSGTYPE_CL_KILL
	MsgClReadyChange       = 29 // NETMSGTYPE_CL_READYCHANGE
	MsgClEmoticon          = 30 // NETMSGTYPE_CL_EMOTICON
	MsgClVote              = 31 // NETMSGTYPE_CL_VOTE
	MsgClCallVote          = 32 // NETMSGTYPE_CL_CALLVOTE
	MsgSvSkinChange        = 33 // NETMSGTYPE_SV_SKINCHANGE
	MsgClSkinChange        = 34 // NETMSGTYPE_CL_SKINCHANGE
	MsgSvRaceFinish        = 35 // NETMSGTYPE_SV_RACEFINISH
	MsgSvCheckpoint        = 36 // NETMSGTYPE_SV_CHECKPOINT
	MsgSvCommandInfo       = 37 // NETMSGTYPE_SV_COMMANDINFO
	MsgSvCommandInfoRemove = 38 // NETMSGTYPE_SV_COMMANDINFOREMOVE
	MsgClCommand           = 39 // NETMSGTYPE_CL_COMMAND
	NumMessages            = 40 // NUM_NETMSGTYPES: one past the last id
)

// Game constants the range checks use (net.md A5.1).
const (
	MaxClients        = 64  // MAX_CLIENTS: client ids are 0..63
	NumWeapons        = 6   // NUM_WEAPONS: weapons 0 (hammer) .. 5 (ninja)
	NumEmoticons      = 16  // NUM_EMOTICONS: EMOTICON_OOP .. EMOTICON_QUESTION
	NumChats          = 4   // NUM_CHATS: CHAT_NONE .. CHAT_WHISPER
	NumSpecModes      = 4   // NUM_SPECMODES: SPEC_FREEVIEW .. SPEC_FLAGBLUE
	NumVoteTypes      = 7   // NUM_VOTES: VOTE_UNKNOWN .. VOTE_END_FAIL
	NumGameMsgs       = 11  // NUM_GAMEMSGS: GAMEMSG_TEAM_SWAP .. GAMEMSG_GAME_PAUSED
	NumSkinParts      = 6   // NUM_SKINPARTS: body, marking, decoration, hands, feet, eyes
	NumTuneParams     = 32  // number of ints in Sv_TuneParams (A5.7)
	MaxVoteOptionAdd  = 21  // MAX_VOTE_OPTION_ADD: options per Sv_VoteOptionListAdd
	MaxVoteTimeout    = 60  // Sv_VoteSet timeout upper bound, seconds
	MaxVoteCount      = 64  // Sv_VoteStatus counters upper bound
	MaxPlayerSlots    = 64  // Sv_ServerSettings kick_min / player_slots upper bound
	GameFlagMask      = 0xF // GAMEFLAG_TEAMS|FLAGS|SURVIVAL|RACE
	TeamSpectators    = -1  // TEAM_SPECTATORS
	TeamRed           = 0   // TEAM_RED
	TeamBlue          = 1   // TEAM_BLUE
	WeaponGame        = -3  // WEAPON_GAME in kill messages
	WeaponSelf        = -2  // WEAPON_SELF in kill messages
	WeaponWorld       = -1  // WEAPON_WORLD in kill messages
	MaxNameLength     = 16  // MAX_NAME_LENGTH incl. NUL
	MaxClanLength     = 12  // MAX_CLAN_LENGTH incl. NUL
	MaxSkinPartLength = 24  // MAX_SKIN_LENGTH incl. NUL
)

// Chat modes (CHAT_*).
const (
	ChatNone    = 0 // CHAT_NONE
	ChatAll     = 1 // CHAT_ALL
	ChatTeam    = 2 // CHAT_TEAM
	ChatWhisper = 3 // CHAT_WHISPER
)

// Game flags (GAMEFLAG_*) carried in Sv_GameInfo.
const (
	GameFlagTeams    = 1 // GAMEFLAG_TEAMS
	GameFlagFlags    = 2 // GAMEFLAG_FLAGS
	GameFlagSurvival = 4 // GAMEFLAG_SURVIVAL
	GameFlagRace     = 8 // GAMEFLAG_RACE
)

// Game message ids carried in Sv_GameMsg (GAMEMSG_*).
const (
	GameMsgTeamSwap          = 0  // GAMEMSG_TEAM_SWAP
	GameMsgSpecInvalidID     = 1  // GAMEMSG_SPEC_INVALIDID
	GameMsgTeamShuffle       = 2  // GAMEMSG_TEAM_SHUFFLE
	GameMsgTeamBalance       = 3  // GAMEMSG_TEAM_BALANCE
	GameMsgCtfDrop           = 4  // GAMEMSG_CTF_DROP
	GameMsgCtfReturn         = 5  // GAMEMSG_CTF_RETURN
	GameMsgTeamAll           = 6  // GAMEMSG_TEAM_ALL (1 param: team)
	GameMsgTeamBalanceVictim = 7  // GAMEMSG_TEAM_BALANCE_VICTIM (1 param: team)
	GameMsgCtfGrab           = 8  // GAMEMSG_CTF_GRAB (1 param: team)
	GameMsgCtfCapture        = 9  // GAMEMSG_CTF_CAPTURE (3 params: team, client id, time)
	GameMsgGamePaused        = 10 // GAMEMSG_GAME_PAUSED (1 param: client id)
)

// Vote types (VOTE_*) carried in Sv_VoteSet.
const (
	VoteUnknown   = 0 // VOTE_UNKNOWN
	VoteStartOp   = 1 // VOTE_START_OP
	VoteStartKick = 2 // VOTE_START_KICK
	VoteStartSpec = 3 // VOTE_START_SPEC
	VoteEndAbort  = 4 // VOTE_END_ABORT
	VoteEndPass   = 5 // VOTE_END_PASS
	VoteEndFail   = 6 // VOTE_END_FAIL
)

// DefaultTuneParams are the 0.7.5 default tuning values ×100 in Sv_TuneParams
// order (net.md A5.7).
var DefaultTuneParams = [NumTuneParams]int32{
	1000, 200, 50, 1320, 1200, 500, 150, 95,
	38000, 8000, 300, 1500, 50, 55000, 200000, 140,
	125, 220000, 200, 125, 275000, 80, 20, 700,
	100000, 200, 80000, 15000, 100, 0, 100, 100,
}

// gameMsgParams is the number of int parameters after the GAMEMSG id in
// Sv_GameMsg, indexed by GAMEMSG id (net.md A5.7).
var gameMsgParams = [NumGameMsgs]int{0, 0, 0, 0, 0, 0, 1, 1, 1, 3, 1}

// GameMsgParams returns how many int parameters follow GAMEMSG id in
// Sv_GameMsg, or -1 when id is not a known GAMEMSG_* value.
func GameMsgParams(id int32) int {
	if id < 0 || id >= NumGameMsgs {
		return -1
	}
	return gameMsgParams[id]
}

var names = [NumMessages]string{
	"invalid", "Sv_Motd", "Sv_Broadcast", "Sv_Chat", "Sv_Team", "Sv_KillMsg",
	"Sv_TuneParams", "Sv_ExtraProjectile", "Sv_ReadyToEnter", "Sv_WeaponPickup",
	"Sv_Emoticon", "Sv_VoteClearOptions", "Sv_VoteOptionListAdd", "Sv_VoteOptionAdd",
	"Sv_VoteOptionRemove", "Sv_VoteSet", "Sv_VoteStatus", "Sv_ServerSettings",
	"Sv_ClientInfo", "Sv_GameInfo", "Sv_ClientDrop", "Sv_GameMsg", "De_ClientEnter",
	"De_ClientLeave", "Cl_Say", "Cl_SetTeam", "Cl_SetSpectatorMode", "Cl_StartInfo",
	"Cl_Kill", "Cl_ReadyChange", "Cl_Emoticon", "Cl_Vote", "Cl_CallVote",
	"Sv_SkinChange", "Cl_SkinChange", "Sv_RaceFinish", "Sv_Checkpoint",
	"Sv_CommandInfo", "Sv_CommandInfoRemove", "Cl_Command",
}

// Name returns the spec name of a game message id ("Sv_Chat"), or "unknown".
func Name(id int32) string {
	if id < 0 || id >= NumMessages {
		return "unknown"
	}
	return names[id]
}
