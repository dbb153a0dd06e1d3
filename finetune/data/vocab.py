"""Slot fillers for the templates: names of many cultures, places, foods, jobs, pets, dates.

Pools are plain tuples so a template names one by its slot ("{city}", "{city2}" for a second,
different city). Values are chosen to be unambiguous in a sentence: no name that is also a
common English word ("May", "Will", "Hope"), no value that contains a pronoun.
"""

from __future__ import annotations

# names, by the pronoun a relation word implies ("my sister Ana" -> she)
NAMES_F = (
    "Emma", "Olivia", "Sofía", "Lucía", "Valentina", "Beatriz", "Camille", "Léa", "Greta",
    "Giulia", "Chiara", "Sanne", "Astrid", "Freya", "Kasia", "Zofia", "Olena", "Irina", "Eleni",
    "Elif", "Zeynep", "Layla", "Fatima", "Shirin", "Noa", "Yael", "Priya", "Ananya", "Kavya",
    "Ayesha", "Mei", "Xiaoling", "Aiko", "Sakura", "Seo-yeon", "Linh", "Thao", "Ploy",
    "Maricel", "Putri", "Ngozi", "Amara", "Ama", "Wanjiru", "Selam", "Lerato", "Aroha",
    "Siobhan", "Carys", "Keala", "Ingrid", "Marta", "Rosa", "Nadia", "Leila", "Mariam",
    "Tamar", "Anika", "Hana", "Yuna", "Daniela", "Isabela", "Chloé", "Mia", "Amelia", "Nora",
)  # fmt: skip
NAMES_M = (
    "Jack", "Liam", "Mateo", "Diego", "Javier", "João", "Thiago", "Hugo", "Théo", "Lukas",
    "Jonas", "Marco", "Daan", "Erik", "Nils", "Piotr", "Dmitri", "Nikos", "Emre", "Omar",
    "Yusuf", "Karim", "Darius", "Eitan", "Arjun", "Rohan", "Imran", "Farhan", "Wei", "Jun",
    "Hao", "Haruto", "Kenji", "Min-jun", "Minh", "Niran", "Jomar", "Budi", "Chidi", "Tunde",
    "Kwame", "Otieno", "Baraka", "Dawit", "Thabo", "Tane", "Ciarán", "Rhys", "Mateus", "Andrés",
    "Tomasz", "Bilal", "Sami", "Kofi", "Raúl", "Felipe", "Anders", "Lars", "Pavel", "Ravi",
    "Sanjay", "Hyun-woo", "Tariq", "Ibrahim", "Santiago", "Oscar",
)  # fmt: skip
NAMES = NAMES_F + NAMES_M
SURNAMES = (
    "Okafor", "Nakamura", "García", "Kowalski", "Haddad", "Fernandes", "Nguyen", "Müller",
    "Rossi", "Patel", "Kim", "Mensah", "Ivanova", "Yilmaz", "Larsen", "O'Brien", "Santos",
    "Chen", "Dubois", "Mwangi", "Cohen", "Rahman", "Tanaka", "Silva", "Novak",
)  # fmt: skip
REL_F = ("sister", "mom", "daughter", "aunt", "grandma", "wife", "girlfriend", "niece", "cousin")
REL_M = ("brother", "dad", "son", "uncle", "grandpa", "husband", "boyfriend", "nephew", "cousin")
FRIEND = ("friend", "best friend", "colleague", "neighbour", "roommate", "flatmate", "coworker")

CITIES = (
    "Leeds", "Lisbon", "Porto", "Nairobi", "Osaka", "Busan", "Montreal", "Oaxaca", "Krakow",
    "Tbilisi", "Lagos", "Accra", "Hanoi", "Cebu", "Adelaide", "Wellington", "Valparaíso",
    "Medellín", "Tampere", "Ghent", "Bologna", "Izmir", "Marrakesh", "Pune", "Kochi",
    "Chiang Mai", "Bergen", "Graz", "Lyon", "Cork", "Glasgow", "Halifax", "Denver", "Austin",
    "Tucson", "Dresden", "Seville", "Bilbao", "Cluj", "Tallinn", "Kyoto", "Taipei", "Penang",
    "Durban", "Kigali", "Addis Ababa", "Muscat", "Haifa", "Tartu", "Gothenburg", "Rotterdam",
    "Edinburgh", "Manchester", "Vancouver", "Brisbane", "Cape Town", "São Paulo", "Quito",
)  # fmt: skip
COUNTRIES = (
    "Portugal", "Japan", "Peru", "Vietnam", "Morocco", "Iceland", "Kenya", "Chile", "Norway",
    "Mexico", "Greece", "Indonesia", "Jordan", "Canada", "Sri Lanka", "New Zealand",
    "Argentina", "Croatia", "Ghana", "Colombia", "Scotland", "Finland", "Thailand", "Turkey",
    "South Korea", "Ethiopia", "Uruguay", "Slovenia", "Nepal", "Tanzania",
)  # fmt: skip
FOODS = (
    "ramen", "pho", "dumplings", "paella", "tacos", "injera", "jollof rice", "pierogi",
    "falafel", "shakshuka", "biryani", "laksa", "sushi", "lasagna", "moussaka", "ceviche",
    "bibimbap", "pad thai", "mac and cheese", "banana bread", "khachapuri", "dal", "empanadas",
    "kimchi stew", "goulash", "couscous", "arepas", "poutine", "baklava", "tiramisu",
    "dim sum", "risotto", "feijoada", "okonomiyaki", "pupusas", "borscht",
)  # fmt: skip
CUISINES = (
    "Thai", "Ethiopian", "Georgian", "Peruvian", "Korean", "Lebanese", "Sichuan", "Mexican",
    "Vietnamese", "Turkish", "Greek", "Japanese", "Indian", "Nigerian", "Moroccan", "Sri Lankan",
)  # fmt: skip
DISLIKED_FOODS = (
    "olives", "coriander", "mushrooms", "blue cheese", "licorice", "anchovies", "okra",
    "raisins", "beetroot", "tofu", "eggplant", "mayonnaise", "oysters", "celery",
)  # fmt: skip
DRINKS = (
    "oat milk lattes", "green tea", "mate", "kombucha", "black coffee", "chai", "hibiscus tea",
    "sparkling water", "espresso", "rooibos", "cold brew", "matcha",
)  # fmt: skip
GENRES = (
    "jazz", "k-pop", "afrobeats", "bossa nova", "techno", "bluegrass", "metal", "lo-fi hip hop",
    "reggaeton", "classical piano", "synthwave", "folk", "cumbia", "grime", "city pop", "fado",
    "highlife", "punk rock", "soul", "drum and bass",
)  # fmt: skip
ARTISTS = (
    "Fela Kuti", "Björk", "Nina Simone", "Radiohead", "Rosalía", "Burna Boy", "Caetano Veloso",
    "Fairuz", "Ryuichi Sakamoto", "Ali Farka Touré", "Khruangbin", "Mitski", "Arooj Aftab",
)  # fmt: skip
COLORS = (
    "teal", "mustard yellow", "forest green", "burgundy", "lavender", "navy blue", "coral",
    "orange", "charcoal grey", "turquoise", "olive green", "maroon", "sky blue", "emerald",
)  # fmt: skip
BOOKS = (
    "Dune", "Beloved", "The Left Hand of Darkness", "Things Fall Apart", "Piranesi",
    "One Hundred Years of Solitude", "Kafka on the Shore", "Middlemarch", "The Remains of the Day",
    "Americanah", "Pachinko", "The Master and Margarita",
)  # fmt: skip
SHOWS = (
    "Severance", "The Bear", "Dark", "Squid Game", "Fleabag", "Succession", "Shogun",
    "Derry Girls", "Arcane", "Reservation Dogs", "Slow Horses", "Bluey",
)  # fmt: skip
JOBS = (
    "nurse", "software engineer", "primary school teacher", "architect", "pharmacist",
    "barista", "data analyst", "electrician", "midwife", "graphic designer", "accountant",
    "physiotherapist", "chef", "translator", "civil engineer", "vet", "librarian", "bus driver",
    "marine biologist", "UX researcher", "dentist", "lawyer", "journalist", "carpenter",
    "social worker", "lab technician", "pilot", "florist", "game developer", "paramedic",
)  # fmt: skip
COMPANIES = (
    "Brightline Labs", "Northwind Logistics", "Pallas Health", "Kestrel Bank", "Ortho Dynamics",
    "Lumen Media", "Greenleaf Grocers", "Tidewater Energy", "Atlas Robotics", "Bluebird Air",
    "Cobalt Studios", "Maple and Finch", "Quartz Analytics", "Riverside Clinic", "Saffron Foods",
    "Helix Pharma", "Juniper Schools", "Orca Software", "Redwood Architects", "Sable Insurance",
    "Vantage Motors", "Willow Care", "Zephyr Games", "Copperfield Law",
)  # fmt: skip
TEAMS = ("marketing", "finance", "the data team", "customer support", "logistics", "research")
SCHOOLS = (
    "Lakeside College", "Northfield University", "the Open University", "Eastgate Academy",
    "Harbourview Institute", "Westbrook Community College", "Kingsley University",
    "the Riverside School of Design", "Carrow Polytechnic", "St. Brigid's College",
)  # fmt: skip
SUBJECTS = (
    "marine biology", "computer science", "nursing", "law", "architecture", "Japanese",
    "statistics", "art history", "mechanical engineering", "economics", "music theory",
    "pharmacology", "accounting", "linguistics", "data science", "philosophy",
)  # fmt: skip
HOBBIES = (
    "bouldering", "pottery", "birdwatching", "salsa dancing", "chess", "knitting",
    "trail running", "woodworking", "photography", "baking sourdough", "gardening",
    "calligraphy", "kayaking", "origami", "surfing", "cycling", "yoga", "fishing", "crochet",
    "stand-up comedy", "beekeeping", "archery", "fencing", "rock climbing", "embroidery",
)  # fmt: skip
SPORTS = (
    "tennis", "badminton", "volleyball", "cricket", "basketball", "table tennis", "padel",
    "rugby", "football", "netball", "ultimate frisbee", "water polo", "squash", "handball",
)  # fmt: skip
INSTRUMENTS = (
    "cello", "ukulele", "bass guitar", "piano", "violin", "drums", "saxophone", "oud",
    "harmonica", "trumpet", "sitar", "accordion", "flute", "kora", "banjo", "clarinet",
)  # fmt: skip
LANGUAGES = (
    "Portuguese", "Japanese", "Swahili", "Korean", "Arabic", "Polish", "Mandarin", "Turkish",
    "Hindi", "Dutch", "Greek", "Tagalog", "Spanish", "Italian", "Yoruba", "Vietnamese",
)  # fmt: skip
ALLERGENS = (
    "peanuts", "shellfish", "penicillin", "pollen", "gluten", "bee stings", "sesame",
    "tree nuts", "latex", "dust mites", "eggs", "kiwi fruit", "soy", "mustard seeds",
)  # fmt: skip
CONDITIONS = (
    "asthma", "migraines", "type 1 diabetes", "eczema", "hay fever", "high blood pressure",
    "a bad knee", "lower back pain", "celiac disease", "tinnitus",
)  # fmt: skip
MEDICATIONS = ("an inhaler", "insulin", "antihistamines", "vitamin D", "iron tablets", "eye drops")
DIETS = ("vegetarian", "vegan", "pescatarian", "halal", "kosher", "dairy-free", "gluten-free")
SPECIES = (
    "dog", "cat", "rabbit", "parrot", "hamster", "tortoise", "goldfish", "gecko", "ferret",
    "budgie", "guinea pig", "hedgehog",
)  # fmt: skip
DOG_BREEDS = (
    "golden retriever", "beagle", "border collie", "dachshund", "pug", "husky", "labrador",
    "greyhound", "corgi", "shiba inu", "poodle", "whippet", "boxer",
)  # fmt: skip
CAT_BREEDS = ("Maine Coon", "Siamese", "Bengal", "ragdoll", "tabby", "Sphynx", "British shorthair")
PET_NAMES = (
    "Biscuit", "Miso", "Luna", "Pepper", "Mochi", "Simba", "Nala", "Rocky", "Ziggy", "Noodle",
    "Tofu", "Bruno", "Coco", "Kiwi", "Pixel", "Olive", "Gizmo", "Bella", "Mango", "Pickles",
    "Chai", "Waffles", "Basil", "Juniper", "Ollie", "Loki", "Frida", "Taco", "Bao", "Pumpkin",
    "Sir Fluffington", "Captain", "Peanut", "Maple", "Ginger", "Socks", "Zuko", "Yoda",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)  # "May" is left out: a month that reads as a hedge ("may")
WHEN = (
    "next Tuesday", "this Saturday", "on Friday", "tomorrow", "on the 14th", "next week",
    "in two weeks", "on March 3rd", "on June 12", "this weekend", "next month",
    "on October 5th", "the day after tomorrow", "on Sunday morning", "in August",
)  # fmt: skip
TIMES = ("at 9am", "at 3:30", "at noon", "around 7pm", "at 8:15", "at half past six", "at 10")
EVENTS = (
    "dentist appointment", "job interview", "driving test", "team offsite", "piano recital",
    "parent-teacher meeting", "vet appointment", "book club", "thesis defense", "half marathon",
    "eye exam", "chemistry exam", "housewarming party", "performance review", "flu shot",
    "physio session", "pottery class", "wedding rehearsal", "hackathon", "citizenship interview",
)  # fmt: skip
PHONES = ("Pixel 8", "iPhone 15", "Galaxy S23", "Fairphone 5", "OnePlus 12", "Moto G")
LAPTOPS = ("ThinkPad", "MacBook Air", "Framework laptop", "Dell XPS", "Chromebook", "Surface")
OSES = ("Linux", "Fedora", "Ubuntu", "Windows 11", "macOS", "Arch Linux", "Debian")
PROG_LANGS = ("Rust", "Python", "Go", "Kotlin", "TypeScript", "Elixir", "Haskell", "Swift")
EDITORS = ("Vim", "VS Code", "Emacs", "Neovim", "IntelliJ", "Sublime Text")
GADGETS = (
    "a Kindle", "a Steam Deck", "a 3D printer", "a Raspberry Pi", "an e-bike", "a drone",
    "noise-cancelling headphones", "a smartwatch", "a mechanical keyboard", "a robot vacuum",
)  # fmt: skip
HOMES = ("flat", "apartment", "house", "studio", "houseboat", "cottage", "townhouse")
PLANTS = (
    "monstera", "fiddle leaf fig", "snake plant", "basil plant", "bonsai", "lemon tree",
    "orchid", "pothos", "cactus collection",
)  # fmt: skip
ROOMS = ("kitchen", "bathroom", "balcony", "spare room", "garden", "living room", "attic")
AMOUNTS = (
    "300 pounds", "50 euros", "1,200 dollars", "80 francs", "2,000 rand", "40 euros",
    "150 pounds", "600 dollars", "25 euros", "900 pounds",
)  # fmt: skip
GOALS = (
    "a car", "a trip to Japan", "a house deposit", "a new laptop", "a wedding", "a motorbike",
    "an electric bike", "a sabbatical", "a piano", "a round-the-world trip",
)  # fmt: skip
BANKS = ("Kestrel Bank", "Monzo", "Northern Credit Union", "Harbour Savings", "Revolut", "N26")
GAMES = (
    "Catan", "Monopoly", "Ticket to Ride", "Scrabble", "Carcassonne", "Azul", "Uno", "Risk",
    "Pandemic", "Codenames", "Dominion", "backgammon", "mahjong", "Wingspan",
)  # fmt: skip
HOUSE_RULES = (
    "Free Parking collects the taxes", "the youngest player goes first",
    "doubles give an extra turn", "nobody trades on the first turn",
    "a seven makes everyone discard half", "the loser shuffles for the next round",
    "forgetting to call Uno costs two cards", "the winner picks the next game",
    "ties go to the defender", "each player starts with ten gold",
)  # fmt: skip
COLLECTIBLES = (
    "vinyl records", "stamps", "postcards", "fountain pens", "comic books", "enamel pins",
    "sneakers", "minerals", "vintage cameras", "board games", "houseplants", "tea tins",
)  # fmt: skip
DIE_SIDES = ("4", "6", "8", "10", "12", "20")
PLACES = (
    "the farmers market", "the climbing gym", "the library", "a jazz bar", "the beach",
    "a ramen place", "the botanical garden", "the old town", "a night market", "the museum",
)  # fmt: skip
TOPICS = (
    "the weather", "the traffic", "the weekend", "the match last night", "a podcast",
    "a new recipe", "the news", "a documentary",
)  # fmt: skip

POOLS: dict[str, tuple[str, ...]] = {
    "name": NAMES,
    "fname": NAMES_F,
    "mname": NAMES_M,
    "surname": SURNAMES,
    "relf": REL_F,
    "relm": REL_M,
    "friend": FRIEND,
    "city": CITIES,
    "country": COUNTRIES,
    "food": FOODS,
    "cuisine": CUISINES,
    "dislike": DISLIKED_FOODS,
    "drink": DRINKS,
    "genre": GENRES,
    "artist": ARTISTS,
    "color": COLORS,
    "book": BOOKS,
    "show": SHOWS,
    "job": JOBS,
    "company": COMPANIES,
    "team": TEAMS,
    "school": SCHOOLS,
    "subject": SUBJECTS,
    "hobby": HOBBIES,
    "sport": SPORTS,
    "instrument": INSTRUMENTS,
    "language": LANGUAGES,
    "allergen": ALLERGENS,
    "condition": CONDITIONS,
    "medication": MEDICATIONS,
    "diet": DIETS,
    "species": SPECIES,
    "dogbreed": DOG_BREEDS,
    "catbreed": CAT_BREEDS,
    "pet": PET_NAMES,
    "weekday": WEEKDAYS,
    "month": MONTHS,
    "when": WHEN,
    "time": TIMES,
    "event": EVENTS,
    "phone": PHONES,
    "laptop": LAPTOPS,
    "os": OSES,
    "proglang": PROG_LANGS,
    "editor": EDITORS,
    "gadget": GADGETS,
    "home": HOMES,
    "plant": PLANTS,
    "room": ROOMS,
    "amount": AMOUNTS,
    "goal": GOALS,
    "bank": BANKS,
    "game": GAMES,
    "houserule": HOUSE_RULES,
    "sides": DIE_SIDES,
    "place": PLACES,
    "topic": TOPICS,
    "age": tuple(str(n) for n in range(19, 78)),
    "year": tuple(str(n) for n in range(1952, 2020)),
    "num": tuple(str(n) for n in range(2, 13)),
    "day": ("1st", "3rd", "5th", "9th", "12th", "14th", "17th", "21st", "23rd", "28th", "30th"),
    "ordinal": ("first", "second", "third", "final"),
    "collectible": COLLECTIBLES,
}

DOMAINS = (
    "personal",
    "family",
    "pets",
    "preferences",
    "plans",
    "work",
    "study",
    "health",
    "travel",
    "money",
    "hobbies",
    "tech",
    "home",
    "game_rules",
    "corrections",
    "small_talk",
    "questions",
)
