/**
 * Reasoning-like prose in the languages real sessions are written in (English, French, Spanish,
 * German, Chinese), for the generator's language axis: sentence shapes over a vocabulary per
 * language, synonyms a restated thought swaps in, a user's short replies, and a question that asks
 * for a decision. Drift works per word for the spaced languages and per phrase for Chinese.
 */
import type { Rng } from "./types";

export type Lang = "en" | "fr" | "es" | "de" | "zh";
export const LANGS: readonly Lang[] = ["en", "fr", "es", "de", "zh"];

interface Vocabulary {
  subjects: string[];
  verbs: string[];
  objects: string[];
  clauses: string[];
  /** Sentence shapes: s = subject, v = verb, o = object, c = clause. */
  shapes: Array<(s: string, v: string, o: string, o2: string, c: string) => string>;
  /** Words or phrases a restatement swaps (both ways). */
  synonyms: Record<string, string[]>;
  fillers: string[];
  replies: string[];
  questions: string[];
  nudges: string[];
  /** Words between sentences: "" for Chinese. */
  space: string;
}

const VOCAB: Record<Lang, Vocabulary> = {
  en: {
    subjects: ["the parser", "the config loader", "the retry handler", "the cache layer", "the session store", "the worker pool", "the router", "the scheduler", "the upload handler", "the rate limiter"],
    verbs: ["reads", "drops", "rewrites", "skips", "caches", "retries", "validates", "flushes", "rejects", "merges"],
    objects: ["the last field", "the stale token", "an empty header", "the default timeout", "the trailing newline", "the user id", "the old schema", "the lock file", "the error code", "the retry count"],
    clauses: ["before the lock is taken", "when the file is missing", "after the first retry", "because the index is off by one", "while the queue is still draining", "once the socket closes"],
    shapes: [
      (s, v, o, _o2, c) => `${s} ${v} ${o} ${c}.`,
      (s, v, o, o2) => `I think ${s} ${v} ${o}, which explains ${o2}.`,
      (s, _v, o, o2, c) => `So the fix is to make ${s} stop treating ${o} as ${o2} ${c}.`,
    ],
    synonyms: { reads: ["loads", "takes"], drops: ["loses", "discards"], rewrites: ["replaces", "changes"], skips: ["misses", "ignores"], fix: ["patch", "change"], before: ["ahead of"], after: ["following"], old: ["stale", "previous"], last: ["final"], missing: ["absent"], explains: ["accounts for", "causes"], think: ["believe", "suspect"], stop: ["cease"], treating: ["handling", "reading"], error: ["failure"], first: ["initial"], the: ["this", "that"], so: ["therefore", "thus"] },
    fillers: ["really", "still", "probably", "clearly", "just", "indeed"],
    replies: ["yes", "no", "just do it", "ok", "go ahead", "whatever you think"],
    questions: ["Should I change the config loader or patch the retry handler first? Please confirm before I touch anything.", "Do you want me to keep the old schema for the migration, or drop it and rebuild the table?"],
    nudges: ["continue", "Please continue.", "keep going"],
    space: " ",
  },
  fr: {
    subjects: ["le parseur", "le chargeur de configuration", "le gestionnaire de reprise", "la couche de cache", "le magasin de sessions", "le routeur", "le planificateur", "le limiteur de débit"],
    verbs: ["lit", "perd", "réécrit", "ignore", "met en cache", "valide", "rejette", "fusionne"],
    objects: ["le dernier champ", "le jeton périmé", "un en-tête vide", "le délai par défaut", "le saut de ligne final", "l'identifiant utilisateur", "l'ancien schéma", "le fichier de verrou"],
    clauses: ["avant que le verrou soit pris", "quand le fichier manque", "après la première reprise", "parce que l'index est décalé d'un", "pendant que la file se vide"],
    shapes: [
      (s, v, o, _o2, c) => `${cap(s)} ${v} ${o} ${c}.`,
      (s, v, o, o2) => `Je pense que ${s} ${v} ${o}, ce qui explique ${o2}.`,
      (s, _v, o, o2, c) => `Donc la correction consiste à empêcher ${s} de traiter ${o} comme ${o2} ${c}.`,
    ],
    synonyms: { lit: ["charge", "prend"], perd: ["supprime", "égare"], réécrit: ["remplace", "modifie"], ignore: ["saute", "omet"], correction: ["modification", "réparation"], pense: ["crois", "suppose"], explique: ["justifie", "cause"], ancien: ["vieux", "précédent"], dernier: ["final"], manque: ["est absent"], traiter: ["considérer", "lire"], donc: ["ainsi", "alors"] },
    fillers: ["vraiment", "encore", "probablement", "clairement", "simplement"],
    replies: ["oui", "non", "vas-y", "d'accord", "fais-le", "comme tu veux"],
    questions: ["Dois-je modifier le chargeur de configuration ou corriger d'abord le gestionnaire de reprise ? Merci de confirmer avant que je touche à quoi que ce soit.", "Voulez-vous que je garde l'ancien schéma pour la migration, ou que je le supprime et reconstruise la table ?"],
    nudges: ["continue", "Continue, s'il te plaît."],
    space: " ",
  },
  es: {
    subjects: ["el analizador", "el cargador de configuración", "el gestor de reintentos", "la capa de caché", "el almacén de sesiones", "el enrutador", "el planificador", "el limitador de tasa"],
    verbs: ["lee", "pierde", "reescribe", "omite", "guarda en caché", "valida", "rechaza", "fusiona"],
    objects: ["el último campo", "el token caducado", "una cabecera vacía", "el tiempo de espera por defecto", "el salto de línea final", "el identificador de usuario", "el esquema antiguo", "el archivo de bloqueo"],
    clauses: ["antes de tomar el bloqueo", "cuando falta el archivo", "después del primer reintento", "porque el índice está desplazado en uno", "mientras la cola se vacía"],
    shapes: [
      (s, v, o, _o2, c) => `${cap(s)} ${v} ${o} ${c}.`,
      (s, v, o, o2) => `Creo que ${s} ${v} ${o}, lo que explica ${o2}.`,
      (s, _v, o, o2, c) => `Así que la solución es hacer que ${s} deje de tratar ${o} como ${o2} ${c}.`,
    ],
    synonyms: { lee: ["carga", "toma"], pierde: ["descarta", "elimina"], reescribe: ["reemplaza", "cambia"], omite: ["ignora", "salta"], solución: ["corrección", "arreglo"], creo: ["pienso", "supongo"], explica: ["justifica", "causa"], antiguo: ["viejo", "anterior"], último: ["final"], falta: ["no existe"], tratar: ["considerar", "leer"] },
    fillers: ["realmente", "todavía", "probablemente", "claramente", "simplemente"],
    replies: ["sí", "no", "hazlo", "vale", "adelante", "como quieras"],
    questions: ["¿Debo cambiar el cargador de configuración o corregir primero el gestor de reintentos? Por favor confirma antes de que toque nada.", "¿Quieres que mantenga el esquema antiguo para la migración, o que lo elimine y reconstruya la tabla?"],
    nudges: ["continúa", "Sigue, por favor."],
    space: " ",
  },
  de: {
    subjects: ["der Parser", "der Konfigurationslader", "der Wiederholungshandler", "die Cache-Schicht", "der Sitzungsspeicher", "der Router", "der Planer", "der Ratenbegrenzer"],
    verbs: ["liest", "verliert", "überschreibt", "überspringt", "speichert", "validiert", "verwirft", "verschmilzt"],
    objects: ["das letzte Feld", "das abgelaufene Token", "einen leeren Header", "das Standard-Timeout", "den abschließenden Zeilenumbruch", "die Benutzerkennung", "das alte Schema", "die Sperrdatei"],
    clauses: ["bevor die Sperre genommen wird", "wenn die Datei fehlt", "nach dem ersten Versuch", "weil der Index um eins verschoben ist", "während die Warteschlange leerläuft"],
    shapes: [
      (s, v, o, _o2, c) => `${cap(s)} ${v} ${o}, ${c}.`,
      (s, v, o, o2) => `Ich glaube, ${s} ${v} ${o}, was ${o2} erklärt.`,
      (s, _v, o, o2, c) => `Also besteht die Korrektur darin, dass ${s} ${o} nicht mehr als ${o2} behandelt, ${c}.`,
    ],
    synonyms: { liest: ["lädt", "nimmt"], verliert: ["verwirft", "löscht"], überschreibt: ["ersetzt", "ändert"], überspringt: ["ignoriert", "übergeht"], Korrektur: ["Änderung", "Reparatur"], glaube: ["denke", "vermute"], erklärt: ["begründet", "verursacht"], alte: ["veraltete", "frühere"], letzte: ["finale"], fehlt: ["nicht existiert"], behandelt: ["liest", "betrachtet"], also: ["daher", "somit"] },
    fillers: ["wirklich", "immer", "wahrscheinlich", "eindeutig", "einfach"],
    replies: ["ja", "nein", "mach einfach", "ok", "los", "wie du willst"],
    questions: ["Soll ich den Konfigurationslader ändern oder zuerst den Wiederholungshandler reparieren? Bitte bestätige, bevor ich etwas anfasse.", "Soll ich das alte Schema für die Migration behalten oder es löschen und die Tabelle neu aufbauen?"],
    nudges: ["weiter", "Bitte fortfahren."],
    space: " ",
  },
  zh: {
    subjects: ["解析器", "配置加载器", "重试处理器", "缓存层", "会话存储", "路由器", "调度器", "限流器"],
    verbs: ["读取了", "丢弃了", "重写了", "跳过了", "缓存了", "校验了", "拒绝了", "合并了"],
    objects: ["最后一个字段", "过期的令牌", "空的请求头", "默认超时", "末尾的换行符", "用户编号", "旧的表结构", "锁文件"],
    clauses: ["在获取锁之前", "当文件不存在时", "在第一次重试之后", "因为索引偏移了一位", "在队列清空的过程中"],
    shapes: [
      (s, v, o, _o2, c) => `${c}，${s}${v}${o}。`,
      (s, v, o, o2) => `我认为${s}${v}${o}，这解释了${o2}的问题。`,
      (s, _v, o, o2, c) => `所以修复方法是让${s}${c}不再把${o}当作${o2}处理。`,
    ],
    synonyms: { 认为: ["觉得", "怀疑"], 解释了: ["说明了", "导致了"], 修复方法: ["解决办法", "改法"], 所以: ["因此", "于是"], 读取了: ["加载了"], 丢弃了: ["丢失了", "删掉了"], 重写了: ["替换了", "修改了"], 跳过了: ["忽略了"], 旧的: ["过时的", "之前的"], 不存在: ["缺失"], 处理: ["对待"] },
    fillers: ["确实", "仍然", "可能", "显然", "其实"],
    replies: ["是", "不", "直接做吧", "好的", "继续", "你决定"],
    questions: ["我应该先修改配置加载器，还是先修复重试处理器？请在我动手之前确认一下。", "迁移时要保留旧的表结构，还是删除后重建这张表？"],
    nudges: ["继续", "请继续。"],
    space: "",
  },
};

function cap(s: string): string { return s.charAt(0).toUpperCase() + s.slice(1); }

export function vocabulary(lang: Lang): Vocabulary { return VOCAB[lang]; }

/** One sentence of reasoning about code in the language. */
export function sentenceIn(rng: Rng, lang: Lang): string {
  const v = VOCAB[lang];
  return rng.pick(v.shapes)(rng.pick(v.subjects), rng.pick(v.verbs), rng.pick(v.objects), rng.pick(v.objects), rng.pick(v.clauses));
}

export function thoughtIn(rng: Rng, lang: Lang, n: number): string {
  return Array.from({ length: n }, () => sentenceIn(rng, lang)).join(VOCAB[lang].space);
}

/**
 * The thought restated with about `share` of its words (Chinese: its phrases) changed: a synonym
 * swapped in, a filler put beside a word, or a word replaced by a filler; sentences may swap.
 */
export function driftIn(rng: Rng, lang: Lang, text: string, share: number): string {
  const v = VOCAB[lang];
  let sentences = lang === "zh" ? text.split(/(?<=。)/) : text.split(/(?<=[.!?]) /);
  if (sentences.length >= 2 && rng.chance(0.3)) {
    const i = rng.int(0, sentences.length - 2);
    [sentences[i], sentences[i + 1]] = [sentences[i + 1], sentences[i]];
  }
  if (lang === "zh") {
    sentences = sentences.map((s) => {
      let out = s;
      for (const [word, syns] of Object.entries(v.synonyms)) if (out.includes(word) && rng.chance(Math.min(1, share * 2))) out = out.replace(word, rng.pick(syns));
      if (rng.chance(share)) out = rng.pick(v.fillers) + out;
      return out;
    });
    return sentences.join("");
  }
  const words = sentences.join(" ").split(" ");
  return words.map((w) => {
    if (!rng.chance(share)) return w;
    const bare = w.replace(/[.,!?;:]+$/, "");
    const trail = w.slice(bare.length);
    const syn = v.synonyms[bare] ?? v.synonyms[bare.toLowerCase()];
    if (syn) return rng.pick(syn) + trail;
    return rng.chance(0.5) ? `${rng.pick(v.fillers)} ${w}` : rng.pick(v.fillers) + trail;
  }).join(" ");
}
