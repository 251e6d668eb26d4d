// The UI chrome's own words (buttons, headings). Everything about the game itself —
// events, roles, prompts, options, results — comes narrated from the server (werewolf.i18n).
"use strict";
window.UI = {
  en: {
    title: "Werewolf", create: "Create a room", ruleset: "Rules", deck: "Deck", bots: "Bots",
    bots_hint: "Bots take the last seats; empty seats can also be filled when the game starts.",
    mode: "Mode", online: "Online (type your speeches)", face_to_face: "Face to face (a spoken moderator)",
    create_btn: "Create room", join: "Join the game", name: "Your name", join_btn: "Take a seat",
    lobby: "Lobby", share: "Invite: open this link or scan the code", copy: "Copy link", copied: "Copied",
    seats: "Seats", bot: "bot", empty: "empty", you: "you", start: "Start the game",
    start_fill: "Start (bots take the empty seats)", waiting_host: "Waiting for the host to start…",
    watch: "Watch as a spectator", moderator: "Moderator screen", voice_on: "🔊 Start the voice",
    voice_off: "🔇 Voice off", role: "Your role", show: "Tap to show", hide: "Tap to hide",
    log: "What happened", waiting: "Nothing to do now: wait for the others.", send: "Say it",
    pass: "Pass", done_speaking: "Done speaking", say_hint: "Your speech…", confirm: "Confirm",
    choose_seats: "Choose seats, then confirm", time_left: "Time left", game_over: "Game over",
    roles: "Every role", full_log: "Full log (moderator's view)", reconnecting: "Reconnecting…",
    error: "Error", players: "players", speaking_now: "Speaking now", pause: "Pause between night steps (s)",
    new_room: "New room", spectator: "Spectator", host_hint: "You are the host of this room.",
    speak_time: "Speaking time", seat: "Seat", replay: "▶ Replay this game, step by step",
    why: "Why?"
  },
  "zh-Hant": {
    title: "狼人殺", create: "建立房間", ruleset: "規則", deck: "板子", bots: "電腦玩家",
    bots_hint: "電腦玩家坐最後幾個位子；開局時也可以讓電腦補滿空位。",
    mode: "模式", online: "線上（打字發言）", face_to_face: "面殺（語音法官）",
    create_btn: "建立", join: "加入遊戲", name: "你的名字", join_btn: "入座",
    lobby: "等候室", share: "邀請：打開連結或掃描條碼", copy: "複製連結", copied: "已複製",
    seats: "座位", bot: "電腦", empty: "空位", you: "你", start: "開始遊戲",
    start_fill: "開始（電腦補滿空位）", waiting_host: "等待房主開始…",
    watch: "觀戰", moderator: "法官畫面", voice_on: "🔊 開啟語音", voice_off: "🔇 關閉語音",
    role: "你的身分", show: "點擊查看", hide: "點擊隱藏", log: "遊戲紀錄",
    waiting: "目前無需操作，請等待其他玩家。", send: "發言", pass: "過", done_speaking: "發言完畢",
    say_hint: "你的發言…", confirm: "確定", choose_seats: "選擇座位後確定", time_left: "剩餘時間",
    game_over: "遊戲結束", roles: "所有身分", full_log: "完整紀錄（法官視角）", reconnecting: "重新連線中…",
    error: "錯誤", players: "名玩家", speaking_now: "正在發言", pause: "夜晚每步停頓（秒）",
    new_room: "新房間", spectator: "觀眾", host_hint: "你是這個房間的房主。", speak_time: "發言時間",
    seat: "座位", replay: "▶ 逐步回放這局遊戲", why: "為什麼？"
  },
  "zh-Hans": {
    title: "狼人杀", create: "创建房间", ruleset: "规则", deck: "板子", bots: "电脑玩家",
    bots_hint: "电脑玩家坐最后几个位子；开局时也可以让电脑补满空位。",
    mode: "模式", online: "线上（打字发言）", face_to_face: "面杀（语音法官）",
    create_btn: "创建", join: "加入游戏", name: "你的名字", join_btn: "入座",
    lobby: "等候室", share: "邀请：打开链接或扫描二维码", copy: "复制链接", copied: "已复制",
    seats: "座位", bot: "电脑", empty: "空位", you: "你", start: "开始游戏",
    start_fill: "开始（电脑补满空位）", waiting_host: "等待房主开始…",
    watch: "观战", moderator: "法官画面", voice_on: "🔊 开启语音", voice_off: "🔇 关闭语音",
    role: "你的身份", show: "点击查看", hide: "点击隐藏", log: "游戏记录",
    waiting: "目前无需操作，请等待其他玩家。", send: "发言", pass: "过", done_speaking: "发言完毕",
    say_hint: "你的发言…", confirm: "确定", choose_seats: "选择座位后确定", time_left: "剩余时间",
    game_over: "游戏结束", roles: "所有身份", full_log: "完整记录（法官视角）", reconnecting: "重新连接中…",
    error: "错误", players: "名玩家", speaking_now: "正在发言", pause: "夜晚每步停顿（秒）",
    new_room: "新房间", spectator: "观众", host_hint: "你是这个房间的房主。", speak_time: "发言时间",
    seat: "座位", replay: "▶ 逐步回放这局游戏", why: "为什么？"
  }
};
