/**
 * The categories every project starts with, and the breeds shipped for them: the kinds of animal
 * shelters list (the same grouping adoption sites use). A project may rename one, add breeds to
 * it, or add categories of its own (src/categories/categories.service.ts). Data, not rules: keep
 * each list in alphabetical order.
 */
export const DEFAULT_CATEGORIES: readonly { id: number; name: string; breeds: readonly string[] }[] = [
  {
    id: 1,
    name: 'Dog',
    breeds: [
      'Affenpinscher', 'Afghan Hound', 'Airedale Terrier', 'Akbash', 'Akita', 'Alaskan Klee Kai', 'Alaskan Malamute', 'American Bulldog',
      'American Eskimo Dog', 'American Foxhound', 'American Hairless Terrier', 'American Pit Bull Terrier', 'American Staffordshire Terrier',
      'American Water Spaniel', 'Anatolian Shepherd', 'Appenzeller Sennenhund', 'Australian Cattle Dog', 'Australian Kelpie',
      'Australian Shepherd', 'Australian Terrier', 'Basenji', 'Basset Hound', 'Beagle', 'Bearded Collie', 'Beauceron', 'Bedlington Terrier',
      'Belgian Malinois', 'Belgian Sheepdog', 'Belgian Tervuren', 'Bernese Mountain Dog', 'Bichon Frise', 'Black and Tan Coonhound',
      'Black Mouth Cur', 'Black Russian Terrier', 'Bloodhound', 'Blue Lacy', 'Bluetick Coonhound', 'Boerboel', 'Bolognese', 'Border Collie',
      'Border Terrier', 'Borzoi', 'Boston Terrier', 'Bouvier des Flandres', 'Boxer', 'Boykin Spaniel', 'Briard', 'Brittany',
      'Brussels Griffon', 'Bull Terrier', 'Bullmastiff', 'Cairn Terrier', 'Canaan Dog', 'Cane Corso', 'Cardigan Welsh Corgi',
      'Carolina Dog', 'Catahoula Leopard Dog', 'Cattle Dog', 'Caucasian Shepherd Dog', 'Cavalier King Charles Spaniel',
      'Chesapeake Bay Retriever', 'Chihuahua', 'Chinese Crested', 'Chinese Shar-Pei', 'Chinook', 'Chow Chow', 'Cirneco dell\'Etna',
      'Clumber Spaniel', 'Cocker Spaniel', 'Collie', 'Coonhound', 'Corgi', 'Coton de Tulear', 'Curly-Coated Retriever', 'Dachshund',
      'Dalmatian', 'Dandie Dinmont Terrier', 'Doberman Pinscher', 'Dogo Argentino', 'Dogue de Bordeaux', 'Dutch Shepherd',
      'English Bulldog', 'English Cocker Spaniel', 'English Coonhound', 'English Foxhound', 'English Pointer', 'English Setter',
      'English Shepherd', 'English Springer Spaniel', 'English Toy Spaniel', 'Entlebucher Mountain Dog', 'Eskimo Dog', 'Feist',
      'Field Spaniel', 'Fila Brasileiro', 'Finnish Lapphund', 'Finnish Spitz', 'Flat-Coated Retriever', 'Fox Terrier', 'Foxhound',
      'French Bulldog', 'German Pinscher', 'German Shepherd Dog', 'German Shorthaired Pointer', 'German Wirehaired Pointer',
      'Giant Schnauzer', 'Glen of Imaal Terrier', 'Golden Retriever', 'Gordon Setter', 'Great Dane', 'Great Pyrenees',
      'Greater Swiss Mountain Dog', 'Greyhound', 'Harrier', 'Havanese', 'Hound', 'Husky', 'Ibizan Hound', 'Icelandic Sheepdog',
      'Irish Setter', 'Irish Terrier', 'Irish Water Spaniel', 'Irish Wolfhound', 'Italian Greyhound', 'Jack Russell Terrier',
      'Japanese Chin', 'Japanese Spitz', 'Jindo', 'Kai Dog', 'Keeshond', 'Kerry Blue Terrier', 'Komondor', 'Kuvasz',
      'Labrador Retriever', 'Lagotto Romagnolo', 'Lakeland Terrier', 'Leonberger', 'Lhasa Apso', 'Lowchen', 'Maltese',
      'Manchester Terrier', 'Maremma Sheepdog', 'Mastiff', 'McNab', 'Miniature American Shepherd', 'Miniature Bull Terrier',
      'Miniature Pinscher', 'Miniature Poodle', 'Miniature Schnauzer', 'Mountain Cur', 'Neapolitan Mastiff', 'Newfoundland',
      'Norfolk Terrier', 'Norwegian Buhund', 'Norwegian Elkhound', 'Norwich Terrier', 'Nova Scotia Duck Tolling Retriever',
      'Old English Sheepdog', 'Otterhound', 'Papillon', 'Parson Russell Terrier', 'Patterdale Terrier', 'Pekingese',
      'Pembroke Welsh Corgi', 'Petit Basset Griffon Vendeen', 'Pharaoh Hound', 'Pit Bull Terrier', 'Plott Hound', 'Pointer',
      'Polish Lowland Sheepdog', 'Pomeranian', 'Poodle', 'Portuguese Podengo', 'Portuguese Water Dog', 'Presa Canario', 'Pug', 'Puli',
      'Pumi', 'Rat Terrier', 'Redbone Coonhound', 'Retriever', 'Rhodesian Ridgeback', 'Rottweiler', 'Rough Collie', 'Saint Bernard',
      'Saluki', 'Samoyed', 'Schipperke', 'Schnauzer', 'Scottish Deerhound', 'Scottish Terrier', 'Sealyham Terrier', 'Setter',
      'Shepherd', 'Shetland Sheepdog', 'Shiba Inu', 'Shih Tzu', 'Shiloh Shepherd', 'Siberian Husky', 'Silky Terrier', 'Skye Terrier',
      'Sloughi', 'Smooth Collie', 'Smooth Fox Terrier', 'Soft Coated Wheaten Terrier', 'Spaniel', 'Spanish Water Dog', 'Spinone Italiano',
      'Spitz', 'Staffordshire Bull Terrier', 'Standard Poodle', 'Standard Schnauzer', 'Sussex Spaniel', 'Swedish Vallhund', 'Terrier',
      'Thai Ridgeback', 'Tibetan Mastiff', 'Tibetan Spaniel', 'Tibetan Terrier', 'Tosa Inu', 'Toy Fox Terrier', 'Toy Poodle',
      'Treeing Walker Coonhound', 'Vizsla', 'Weimaraner', 'Welsh Springer Spaniel', 'Welsh Terrier', 'West Highland White Terrier',
      'Whippet', 'Wire Fox Terrier', 'Wirehaired Pointing Griffon', 'Xoloitzcuintli', 'Yorkshire Terrier',
    ],
  },
  {
    id: 2,
    name: 'Cat',
    breeds: [
      'Abyssinian', 'American Bobtail', 'American Curl', 'American Shorthair', 'American Wirehair', 'Applehead Siamese', 'Balinese',
      'Bengal', 'Birman', 'Bombay', 'British Longhair', 'British Shorthair', 'Burmese', 'Burmilla', 'Calico', 'Chartreux', 'Chausie',
      'Cornish Rex', 'Cymric', 'Devon Rex', 'Dilute Calico', 'Dilute Tortoiseshell', 'Domestic Long Hair', 'Domestic Medium Hair',
      'Domestic Short Hair', 'Egyptian Mau', 'European Burmese', 'Exotic Shorthair', 'Havana Brown', 'Himalayan', 'Japanese Bobtail',
      'Javanese', 'Korat', 'LaPerm', 'Lykoi', 'Maine Coon', 'Manx', 'Munchkin', 'Nebelung', 'Norwegian Forest Cat', 'Ocicat',
      'Oriental Longhair', 'Oriental Shorthair', 'Persian', 'Pixiebob', 'Ragamuffin', 'Ragdoll', 'Russian Blue', 'Savannah',
      'Scottish Fold', 'Selkirk Rex', 'Siamese', 'Siberian', 'Singapura', 'Snowshoe', 'Somali', 'Sphynx', 'Tabby', 'Tiger',
      'Tonkinese', 'Torbie', 'Tortoiseshell', 'Toyger', 'Turkish Angora', 'Turkish Van', 'Tuxedo',
    ],
  },
  {
    id: 3,
    name: 'Rabbit',
    breeds: [
      'American', 'American Chinchilla', 'American Fuzzy Lop', 'American Sable', 'Angora', 'Belgian Hare', 'Beveren', 'Blanc de Hotot',
      'Britannia Petite', 'Bunny Rabbit', 'Californian', 'Champagne D\'Argent', 'Checkered Giant', 'Cinnamon', 'Creme D\'Argent',
      'Dutch', 'Dwarf', 'Dwarf Eared', 'Dwarf Hotot', 'English Lop', 'English Spot', 'Flemish Giant', 'Florida White', 'French Lop',
      'Giant Chinchilla', 'Harlequin', 'Havana', 'Himalayan', 'Holland Lop', 'Hotot', 'Jersey Wooly', 'Lilac', 'Lionhead', 'Lop Eared',
      'Mini Lop', 'Mini Rex', 'Mini Satin', 'Netherland Dwarf', 'New Zealand', 'Palomino', 'Polish', 'Rex', 'Rhinelander', 'Satin',
      'Silver', 'Silver Fox', 'Silver Marten', 'Tan', 'Thrianta',
    ],
  },
  {
    id: 4,
    name: 'Small & Furry',
    breeds: [
      'Abyssinian Guinea Pig', 'Chinchilla', 'Degu', 'Dwarf Hamster', 'Ferret', 'Gerbil', 'Guinea Pig', 'Hamster', 'Hedgehog', 'Mouse',
      'Peruvian Guinea Pig', 'Prairie Dog', 'Rat', 'Rex Rat', 'Short-Haired Guinea Pig', 'Silkie Guinea Pig', 'Skunk', 'Sugar Glider',
      'Teddy Guinea Pig',
    ],
  },
  {
    id: 5,
    name: 'Horse',
    breeds: [
      'Appaloosa', 'Arabian', 'Belgian', 'Clydesdale', 'Connemara', 'Donkey', 'Draft', 'Friesian', 'Gaited', 'Grade', 'Haflinger',
      'Hanoverian', 'Icelandic Horse', 'Miniature Horse', 'Missouri Foxtrotter', 'Morgan', 'Mule', 'Mustang', 'Paint', 'Paso Fino',
      'Percheron', 'Peruvian Paso', 'Pinto', 'Pony', 'Quarter Horse', 'Saddlebred', 'Shetland Pony', 'Standardbred', 'Tennessee Walker',
      'Thoroughbred', 'Trakehner', 'Warmblood', 'Welsh Pony',
    ],
  },
  {
    id: 6,
    name: 'Bird',
    breeds: [
      'African Grey', 'Amazon', 'Budgie', 'Caique', 'Canary', 'Chicken', 'Cockatiel', 'Cockatoo', 'Conure', 'Dove', 'Duck', 'Eclectus',
      'Finch', 'Goose', 'Lovebird', 'Lory', 'Macaw', 'Parakeet', 'Parrot', 'Parrotlet', 'Pheasant', 'Pigeon', 'Pionus', 'Quaker Parakeet',
      'Rosella', 'Senegal', 'Swan', 'Toucan', 'Turkey',
    ],
  },
  {
    id: 7,
    name: 'Scales, Fins & Other',
    breeds: [
      'Ball Python', 'Bearded Dragon', 'Boa', 'Box Turtle', 'Chameleon', 'Corn Snake', 'Fish', 'Frog', 'Gecko', 'Hermit Crab', 'Iguana',
      'King Snake', 'Leopard Gecko', 'Lizard', 'Monitor', 'Python', 'Red-Eared Slider', 'Salamander', 'Snake', 'Tarantula', 'Tortoise',
      'Turtle', 'Uromastyx',
    ],
  },
  {
    id: 8,
    name: 'Barnyard',
    breeds: ['Alpaca', 'Cow', 'Goat', 'Llama', 'Pig', 'Pot Bellied Pig', 'Sheep'],
  },
]
